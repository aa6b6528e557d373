#include "util/printable.h"

#include <algorithm>
#include <cstdint>

namespace killpoint {
namespace {

void Escape(std::string& out, unsigned char c) {
  static const char kHex[] = "0123456789abcdef";
  out += "\\x";
  out += kHex[c >> 4];
  out += kHex[c & 0xf];
}

// The length of the valid UTF-8 sequence starting at s[i] (2-4), or 0 (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF).
size_t Utf8Length(std::string_view s, size_t i) {
  auto at = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = at(i);
  size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((at(i + k) & 0xc0) != 0x80) return 0;
  }
  unsigned char c1 = at(i + 1);
  if (c == 0xe0 && c1 < 0xa0) return 0;   // overlong
  if (c == 0xed && c1 > 0x9f) return 0;   // surrogate
  if (c == 0xf0 && c1 < 0x90) return 0;   // overlong
  if (c == 0xf4 && c1 > 0x8f) return 0;   // above U+10FFFF
  return n;
}

}  // namespace

std::string Printable(std::string_view text, size_t max_size) {
  std::string out;
  out.reserve(std::min(text.size(), max_size));
  for (size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    size_t n = c >= 0x80 ? Utf8Length(text, i) : 0;
    size_t grows = (c >= 0x20 && c < 0x7f) ? 1 : n > 0 ? n : 4;
    if (out.size() + grows > max_size) return out + "...";
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
      ++i;
    } else if (n > 0) {
      out.append(text.substr(i, n));
      i += n;
    } else {
      Escape(out, c);
      ++i;
    }
  }
  return out;
}

}  // namespace killpoint
