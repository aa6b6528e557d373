// The arithmetic of the scheduler's retry strategies (docs/retry.md): backoff delays with
// their jitter, a sliding-window rate limit and a circuit breaker, all over a virtual clock in
// milliseconds. Pure: no I/O, no real time; the runner (run/trial_runner.cc) drives it and the
// retry_policy_respected checker (check/retry_checks.cc) checks a history against its bounds.
#pragma once

#include <cstdint>
#include <deque>
#include <string_view>
#include <vector>

#include "plan/rng.h"
#include "scenario/scenario.h"
#include "util/name_table.h"

namespace killpoint {

// The backoff before attempt `next_attempt` (2, 3, ...) without jitter:
// min(maximum_interval, initial_interval * coefficient^(next_attempt - 2)).
int64_t BaseDelay(const RetryPolicy& policy, int next_attempt);

// The closed range a jittered delay lies in. `previous` is the delay drawn before the previous
// attempt (the initial interval before attempt 2); only decorrelated jitter reads it.
//   none:         [base, base]
//   full:         [0, base]
//   equal:        [base - base/2, base]
//   decorrelated: [min(cap, initial), min(cap, max(initial, 3 * previous))]
struct DelayBounds {
  int64_t lo = 0;
  int64_t hi = 0;
  bool operator==(const DelayBounds&) const = default;
};
DelayBounds JitterBounds(const RetryPolicy& policy, int next_attempt, int64_t previous);

// A delay drawn uniformly from JitterBounds.
int64_t DrawDelay(const RetryPolicy& policy, int next_attempt, int64_t previous, PlanRng& rng);

// The jitter stream of one attempt is DeriveSeed(..., SeedPurpose::kRetryJitter, {date,
// trigger, attempt}) (plan/seed.h): the same attempt draws the same delay on every machine,
// so a replay waits as the run did.

// At most limit.max_attempts attempt starts in any window of limit.window_ms: a start at t
// counts the starts s with t - window_ms < s <= t.
class RateWindow {
 public:
  explicit RateWindow(RateLimit limit) : limit_(limit) {}

  // The earliest time >= now at which one more attempt may start.
  int64_t EarliestStart(int64_t now) const;
  // An attempt started at `at` (non-decreasing from call to call).
  void Record(int64_t at);

 private:
  RateLimit limit_;
  std::deque<int64_t> starts_;  // the last max_attempts starts, oldest first
};

enum class BreakerState { kClosed, kOpen, kHalfOpen };
inline constexpr auto kBreakerStateNames = MakeNameTable<BreakerState>({
    {BreakerState::kClosed, "closed"},
    {BreakerState::kOpen, "open"},
    {BreakerState::kHalfOpen, "half_open"},
});
static_assert(kBreakerStateNames.Unique());
const char* ToString(BreakerState state);

struct BreakerTransition {
  BreakerState from = BreakerState::kClosed;
  BreakerState to = BreakerState::kClosed;
  int64_t at_ms = 0;
  bool operator==(const BreakerTransition&) const = default;
};

// closed --(failure_threshold consecutive failures)--> open --(open_ms later, an attempt
// starts: the probe)--> half_open --(probe succeeds)--> closed, or --(probe fails)--> open.
// Attempts run one at a time, so half-open lets exactly one probe through.
class Breaker {
 public:
  explicit Breaker(CircuitBreakerPolicy policy) : policy_(policy) {}

  BreakerState state() const { return state_; }
  // The earliest time >= now at which an attempt may start: never while open.
  int64_t EarliestStart(int64_t now) const;
  // An attempt starts at `now` (>= EarliestStart(now)); an open breaker turns half-open.
  std::vector<BreakerTransition> OnStart(int64_t now);
  // The attempt that started last ended at `now`.
  std::vector<BreakerTransition> OnResult(bool success, int64_t now);

 private:
  CircuitBreakerPolicy policy_;
  BreakerState state_ = BreakerState::kClosed;
  int failures_ = 0;       // consecutive, while closed
  int64_t opened_at_ = 0;  // while open
};

}  // namespace killpoint
