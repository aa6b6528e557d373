#include "scenario/scenario.h"

#include <algorithm>
#include <cmath>

#include "scenario/vocabulary.h"

namespace killpoint {

bool Scenario::UsesShim() const {
  auto syscall = [](const std::string& point) {
    size_t colon = point.find(':');
    return colon != std::string::npos && std::find(kSyscallOps.begin(), kSyscallOps.end(),
                                                   point.substr(0, colon)) != kSyscallOps.end();
  };
  return syscall_points || std::any_of(failpoints.begin(), failpoints.end(), syscall) ||
         std::any_of(hold_points.begin(), hold_points.end(), syscall) ||
         std::any_of(models.begin(), models.end(),
                     [](PersistenceModel m) { return m != PersistenceModel::kProcess; });
}

bool Scenario::ChecksOutsideWrites() const {
  auto named = [](const std::vector<std::string>& names) {
    return std::find(names.begin(), names.end(), kWritesInSandbox) != names.end();
  };
  return named(must_hold) || named(expected_violations);
}

int64_t RetryPolicy::DelayBeforeAttempt(int next_attempt) const {
  double delay = static_cast<double>(initial_interval_ms) *
                 std::pow(backoff_coefficient, std::max(0, next_attempt - 2));
  if (delay > static_cast<double>(maximum_interval_ms)) return maximum_interval_ms;
  return static_cast<int64_t>(delay);
}

}  // namespace killpoint
