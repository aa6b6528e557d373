// What a service's trial data holds, read before and after a server kill (docs/services.md,
// "Server faults"): one entry per row of every user table (postgres, mariadb: "TABLE (a,b)") or
// per key (redis: "TYPE KEY = VALUE"). Plain data; the comparison is a pure function.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace killpoint {

struct SnapshotEntry {
  std::string text;
  int64_t ttl_ms = -1;  // a redis key's remaining time to live; -1: it never expires
  bool operator==(const SnapshotEntry&) const = default;
};
using ServiceSnapshot = std::vector<SnapshotEntry>;

// What `after` lacks of `before`, counted as multisets (a row twice before and once after: one
// lost), sorted. An entry whose time to live was at most `elapsed_ms` may have expired in
// between, on its own: it is not counted as lost.
std::vector<std::string> MissingAfter(const ServiceSnapshot& before, const ServiceSnapshot& after,
                                      int64_t elapsed_ms);

inline std::ostream& operator<<(std::ostream& os, const SnapshotEntry& e) {
  return os << e.text << (e.ttl_ms >= 0 ? " (ttl " + std::to_string(e.ttl_ms) + " ms)" : "");
}

}  // namespace killpoint
