// nlohmann_json's messages start with "[json.exception.type_error.302] "; the rest is what a
// user needs. One helper for every reader of JSON files (scenario, journals, manifest, results).
#pragma once

#include <exception>
#include <string>

namespace killpoint {

inline std::string JsonErrorText(const std::exception& e) {
  std::string what = e.what();
  size_t end = what.find("] ");
  return end == std::string::npos ? what : what.substr(end + 2);
}

}  // namespace killpoint
