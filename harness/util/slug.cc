#include "util/slug.h"

#include <cctype>
#include <cstdint>

#include "util/printable.h"

namespace killpoint {

std::string Slug(const std::string& name) {
  std::string out;
  for (size_t i = 0; i < name.size();) {
    unsigned char c = static_cast<unsigned char>(name[i]);
    uint32_t cp = 0;
    size_t n = c >= 0x80 ? Utf8At(name, i, cp) : 0;
    if (n > 0) {
      // A character beyond ASCII is kept (日本語 is a fine folder name), but one that shows as
      // nothing or reorders the name.
      out += IsInvisibleCodePoint(cp) ? std::string("-") : name.substr(i, n);
      i += n;
      continue;
    }
    out += (std::isalnum(c) || c == '-' || c == '_' || c == '.') ? static_cast<char>(c) : '-';
    ++i;
  }
  return out;
}

}  // namespace killpoint
