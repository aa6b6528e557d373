#include "util/closest_name.h"

#include <algorithm>
#include <string>

namespace killpoint {
namespace {

// Damerau-Levenshtein distance (optimal string alignment).
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

size_t Tolerance(size_t length) { return length <= 4 ? 1 : length <= 8 ? 2 : 3; }

}  // namespace

std::string ClosestName(std::string_view typed, const std::vector<std::string>& candidates) {
  // Names of 64 bytes and more are no typos of a field or an option: not compared.
  if (typed.empty() || typed.size() > 64) return "";
  std::string best;
  size_t best_distance = Tolerance(typed.size()) + 1;
  bool tie = false;
  for (const std::string& c : candidates) {
    if (c.size() > 64) continue;
    // A prefix of 3 characters or more counts as one edit: timeout for timeout_ms.
    bool prefix =
        std::min(typed.size(), c.size()) >= 3 && (c.rfind(typed, 0) == 0 || typed.rfind(c, 0) == 0);
    size_t dist = prefix ? 1 : EditDistance(typed, c);
    if (dist < best_distance) {
      best = c;
      best_distance = dist;
      tie = false;
    } else if (dist == best_distance && c != best) {
      tie = true;
    }
  }
  return tie || best_distance > Tolerance(typed.size()) ? "" : best;
}

}  // namespace killpoint
