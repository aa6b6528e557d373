// A content digest for telling versions of a file apart (a scenario, a job's script): FNV-1a
// 64, hex. Not cryptographic: it guards against edits, not against an adversary.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace killpoint {

inline std::string Fnv1a64Hex(std::string_view bytes) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

}  // namespace killpoint
