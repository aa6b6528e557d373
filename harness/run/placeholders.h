// The placeholders of a job command ({workdir}, {biz_date}, ...: scenario/vocabulary.h), put in
// place. Used by the runner and by the bare loop it is measured against (bench/bare_loop.cc).
#pragma once

#include <map>
#include <string>

namespace killpoint {

// Replaces every "{name}" of `vars` in `s` by its value; other braces are left alone.
inline std::string Substitute(std::string s, const std::map<std::string, std::string>& vars) {
  for (const auto& [name, value] : vars) {
    std::string token = "{" + name + "}";
    for (size_t at = s.find(token); at != std::string::npos;
         at = s.find(token, at + value.size())) {
      s.replace(at, token.size(), value);
    }
  }
  return s;
}

}  // namespace killpoint
