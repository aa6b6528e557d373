#include "service/snapshot.h"

#include <algorithm>
#include <map>

namespace killpoint {

std::vector<std::string> MissingAfter(const ServiceSnapshot& before, const ServiceSnapshot& after,
                                      int64_t elapsed_ms) {
  std::map<std::string, int> left;
  for (const SnapshotEntry& e : after) ++left[e.text];
  std::vector<std::string> missing;
  for (const SnapshotEntry& e : before) {
    auto it = left.find(e.text);
    if (it != left.end() && it->second > 0) {
      --it->second;
      continue;
    }
    if (e.ttl_ms >= 0 && e.ttl_ms <= elapsed_ms) continue;  // it may have expired meanwhile
    missing.push_back(e.text);
  }
  std::sort(missing.begin(), missing.end());
  return missing;
}

}  // namespace killpoint
