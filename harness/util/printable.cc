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
  size_t n = c >= 0xc2 && c <= 0xdf   ? 2
             : c >= 0xe0 && c <= 0xef ? 3
             : c >= 0xf0 && c <= 0xf4 ? 4
                                      : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((at(i + k) & 0xc0) != 0x80) return 0;
  }
  unsigned char c1 = at(i + 1);
  if (c == 0xe0 && c1 < 0xa0) return 0;  // overlong
  if (c == 0xed && c1 > 0x9f) return 0;  // surrogate
  if (c == 0xf0 && c1 < 0x90) return 0;  // overlong
  if (c == 0xf4 && c1 > 0x8f) return 0;  // above U+10FFFF
  return n;
}

// The code point of the valid UTF-8 sequence of `n` bytes at s[i].
uint32_t CodePoint(std::string_view s, size_t i, size_t n) {
  auto at = [&](size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(s[i + k])); };
  uint32_t cp = at(0) & (n == 2 ? 0x1f : n == 3 ? 0x0f : 0x07);
  for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (at(k) & 0x3f);
  return cp;
}

void EscapeCodePoint(std::string& out, uint32_t cp) {
  static const char kHex[] = "0123456789abcdef";
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(cp >> shift) & 0xf];
}

}  // namespace

size_t Utf8At(std::string_view s, size_t i, uint32_t& cp) {
  size_t n = Utf8Length(s, i);
  if (n > 0) cp = CodePoint(s, i, n);
  return n;
}

bool IsInvisibleCodePoint(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9f) ||  // C1 controls
         cp == 0xad || cp == 0x61c ||
         cp == 0x180e ||                    // soft hyphen, Arabic letter mark, Mongolian separator
         (cp >= 0x200b && cp <= 0x200f) ||  // zero-width space, joiners, LRM, RLM
         (cp >= 0x2028 && cp <= 0x202e) ||  // line/paragraph separators, bidi embeddings, overrides
         (cp >= 0x2060 && cp <= 0x206f) ||  // word joiner, invisible operators, bidi isolates
         cp == 0xfeff ||                    // zero-width no-break space (BOM)
         (cp >= 0xfff9 && cp <= 0xfffb);    // interlinear annotations
}

std::string LinesJoined(std::string_view text) {
  std::string out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") != std::string_view::npos)
      out += (out.empty() ? "" : " | ") + std::string(line);
    start = end + 1;
  }
  return out;
}

std::string Printable(std::string_view text, size_t max_size) {
  std::string out;
  out.reserve(std::min(text.size(), max_size));
  for (size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    size_t n = c >= 0x80 ? Utf8Length(text, i) : 0;
    size_t grows = (c >= 0x20 && c < 0x7f) ? 1 : n > 0 ? std::max<size_t>(n, 6) : 4;
    if (out.size() + grows > max_size) return out + "...";
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
      ++i;
    } else if (n > 0) {
      uint32_t cp = CodePoint(text, i, n);
      if (IsInvisibleCodePoint(cp)) {
        EscapeCodePoint(out, cp);
      } else {
        out.append(text.substr(i, n));
      }
      i += n;
    } else {
      Escape(out, c);
      ++i;
    }
  }
  return out;
}

}  // namespace killpoint
