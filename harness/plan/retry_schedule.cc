#include "plan/retry_schedule.h"

#include <algorithm>
#include <cmath>

namespace killpoint {

int64_t BaseDelay(const RetryPolicy& p, int next_attempt) {
  double delay = static_cast<double>(p.initial_interval_ms) *
                 std::pow(p.backoff_coefficient, std::max(0, next_attempt - 2));
  if (!(delay < static_cast<double>(p.maximum_interval_ms))) return p.maximum_interval_ms;
  return static_cast<int64_t>(delay);
}

DelayBounds JitterBounds(const RetryPolicy& p, int next_attempt, int64_t previous) {
  int64_t base = BaseDelay(p, next_attempt);
  if (p.jitter == Jitter::kFull) return {0, base};
  if (p.jitter == Jitter::kEqual) return {base - base / 2, base};
  if (p.jitter == Jitter::kDecorrelated) {
    int64_t cap = p.maximum_interval_ms;
    int64_t grown = previous > INT64_MAX / 3 ? INT64_MAX : 3 * previous;
    return {std::min(cap, p.initial_interval_ms),
            std::min(cap, std::max(p.initial_interval_ms, grown))};
  }
  return {base, base};
}

int64_t DrawDelay(const RetryPolicy& p, int next_attempt, int64_t previous, PlanRng& rng) {
  DelayBounds b = JitterBounds(p, next_attempt, previous);
  if (b.hi <= b.lo) return b.lo;
  return b.lo + static_cast<int64_t>(rng.Below(static_cast<uint64_t>(b.hi - b.lo) + 1));
}

int64_t RateWindow::EarliestStart(int64_t now) const {
  if (limit_.max_attempts <= 0 || static_cast<int>(starts_.size()) < limit_.max_attempts)
    return now;
  // The oldest of the last max_attempts starts must have left the window.
  return std::max(now, starts_.front() + limit_.window_ms);
}

void RateWindow::Record(int64_t at) {
  if (limit_.max_attempts <= 0) return;
  starts_.push_back(at);
  while (static_cast<int>(starts_.size()) > limit_.max_attempts) starts_.pop_front();
}

const char* ToString(BreakerState state) { return kBreakerStateNames.NameOf(state).data(); }

int64_t Breaker::EarliestStart(int64_t now) const {
  if (state_ != BreakerState::kOpen) return now;
  return std::max(now, opened_at_ + policy_.open_ms);
}

std::vector<BreakerTransition> Breaker::OnStart(int64_t now) {
  if (state_ != BreakerState::kOpen) return {};
  state_ = BreakerState::kHalfOpen;
  return {{BreakerState::kOpen, BreakerState::kHalfOpen, now}};
}

std::vector<BreakerTransition> Breaker::OnResult(bool success, int64_t now) {
  if (policy_.failure_threshold <= 0) return {};
  BreakerState from = state_;
  if (success) {
    failures_ = 0;
    state_ = BreakerState::kClosed;
  } else if (state_ == BreakerState::kHalfOpen || ++failures_ >= policy_.failure_threshold) {
    failures_ = 0;
    state_ = BreakerState::kOpen;
    opened_at_ = now;
  }
  if (from == state_) return {};
  return {{from, state_, now}};
}

}  // namespace killpoint
