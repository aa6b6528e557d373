#include "util/shell_quote.h"

#include <cctype>
#include <string_view>

namespace killpoint {

std::string ShellQuote(const std::string& s) {
  bool plain = !s.empty();
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (!std::isalnum(u) && std::string_view("_@%+=:,./-").find(c) == std::string_view::npos)
      plain = false;
  }
  if (plain) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace killpoint
