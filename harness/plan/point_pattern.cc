#include "plan/point_pattern.h"

#include <algorithm>

#include "scenario/vocabulary.h"

namespace killpoint {

bool IsPointPattern(std::string_view name) {
  return name.find_first_of("*?") != std::string_view::npos;
}

// The classic greedy glob match: on a mismatch, let the last `*` swallow one more character.
// Linear in practice, O(pattern * name) at worst; no recursion, no allocation.
bool MatchPoint(std::string_view pattern, std::string_view name) {
  size_t p = 0, n = 0;
  size_t star = std::string_view::npos, resume = 0;
  while (n < name.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == name[n])) {
      ++p;
      ++n;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = n;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::vector<CrashPoint> PointsMatching(std::string_view pattern,
                                       const std::vector<CrashPoint>& discovered,
                                       const std::vector<std::string>& excluded) {
  std::vector<CrashPoint> out;
  for (const CrashPoint& point : discovered) {
    if (MatchPoint(pattern, point.name) &&
        std::find(excluded.begin(), excluded.end(), point.name) == excluded.end()) {
      out.push_back(point);
    }
  }
  return out;
}

std::vector<std::string> OpsMatching(std::string_view point) {
  std::string_view literal = point.substr(0, point.find_first_of("*?"));
  std::vector<std::string> ops;
  for (std::string_view op : kSyscallOps) {
    std::string prefix = std::string(op) + ":";
    bool may = literal.size() >= prefix.size() ? literal.substr(0, prefix.size()) == prefix
                                               : prefix.compare(0, literal.size(), literal) == 0 &&
                                                     literal.size() < point.size();
    if (may) ops.emplace_back(op);
  }
  return ops;
}

}  // namespace killpoint
