// Header-only retry strategies for jobs (docs/retry.md): fixed interval, exponential backoff
// with a cap, full / equal / decorrelated jitter, a rate limit on attempts per window, a
// circuit breaker with a half-open probe, a maximum number of attempts and non-retryable
// errors. The clock is injected: production code uses SteadyClock, tests a fake one, so no
// test has to sleep. Not thread-safe: one Retrier per thread of retries.
//
//   killpoint::retry::Retrier retrier(policy, &clock, seed);
//   Outcome out = retrier.Run([&](int attempt) { return CallDownstream(); },
//                             [&](const RetryEvent& e) { Report(e); });
#ifndef KILLPOINT_RETRY_RETRY_H_
#define KILLPOINT_RETRY_RETRY_H_

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <deque>
#include <thread>

namespace killpoint::retry {

enum class Jitter { kNone, kFull, kEqual, kDecorrelated };

// The field names users know from workflow engines; 0 turns the rate limit or breaker off.
struct Policy {
  int max_attempts = 5;        // the first attempt counts
  int64_t initial_ms = 100;    // the backoff before attempt 2
  double coefficient = 2.0;    // 1.0: a fixed interval
  int64_t maximum_ms = 10000;  // the cap of every backoff
  Jitter jitter = Jitter::kNone;
  int rate_max = 0;  // at most rate_max attempt starts in any rate_window_ms
  int64_t rate_window_ms = 0;
  int breaker_threshold = 0;    // opens after this many consecutive failures
  int64_t breaker_open_ms = 0;  // then lets one probe through after this long
};

class Clock {
 public:
  virtual ~Clock() = default;
  virtual int64_t NowMs() = 0;
  virtual void SleepMs(int64_t ms) = 0;
};

class SteadyClock : public Clock {
 public:
  int64_t NowMs() override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                 start_)
        .count();
  }
  void SleepMs(int64_t ms) override {
    if (ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// SplitMix64, uniform without modulo bias.
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi]; lo when hi <= lo.
  int64_t Between(int64_t lo, int64_t hi) {
    if (hi <= lo) return lo;
    uint64_t n = static_cast<uint64_t>(hi - lo) + 1;
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do x = Next();
    while (x >= limit);
    return lo + static_cast<int64_t>(x % n);
  }

 private:
  uint64_t state_;
};

// min(maximum, initial * coefficient^(next_attempt - 2)) for next_attempt >= 2.
inline int64_t BaseDelay(const Policy& p, int next_attempt) {
  double d =
      static_cast<double>(p.initial_ms) * std::pow(p.coefficient, std::max(0, next_attempt - 2));
  return d < static_cast<double>(p.maximum_ms) ? static_cast<int64_t>(d) : p.maximum_ms;
}

struct Bounds {
  int64_t lo = 0;
  int64_t hi = 0;
};

// none [base, base]; full [0, base]; equal [base - base/2, base];
// decorrelated [min(cap, initial), min(cap, max(initial, 3 * previous))].
inline Bounds DelayBounds(const Policy& p, int next_attempt, int64_t previous) {
  int64_t base = BaseDelay(p, next_attempt);
  switch (p.jitter) {
    case Jitter::kNone:
      return {base, base};
    case Jitter::kFull:
      return {0, base};
    case Jitter::kEqual:
      return {base - base / 2, base};
    case Jitter::kDecorrelated: {
      int64_t grown = previous > INT64_MAX / 3 ? INT64_MAX : 3 * previous;
      return {std::min(p.maximum_ms, p.initial_ms),
              std::min(p.maximum_ms, std::max(p.initial_ms, grown))};
    }
  }
  return {base, base};
}

// At most max starts in any window: a start at t counts the starts s with t - window < s <= t.
class RateLimiter {
 public:
  RateLimiter(int max, int64_t window_ms) : max_(max), window_ms_(window_ms) {}
  int64_t EarliestMs(int64_t now) const {
    if (max_ <= 0 || static_cast<int>(starts_.size()) < max_) return now;
    return std::max(now, starts_.front() + window_ms_);
  }
  void Record(int64_t at) {
    if (max_ <= 0) return;
    starts_.push_back(at);
    while (static_cast<int>(starts_.size()) > max_) starts_.pop_front();
  }

 private:
  int max_;
  int64_t window_ms_;
  std::deque<int64_t> starts_;
};

// closed -> open after `threshold` consecutive failures; open -> half_open when an attempt
// starts open_ms later (the probe); half_open -> closed on its success, -> open on its failure.
class CircuitBreaker {
 public:
  enum class State { kClosed, kOpen, kHalfOpen };
  CircuitBreaker(int threshold, int64_t open_ms) : threshold_(threshold), open_ms_(open_ms) {}

  State state() const { return state_; }
  int64_t EarliestMs(int64_t now) const {
    return state_ == State::kOpen ? std::max(now, opened_at_ + open_ms_) : now;
  }
  // An attempt starts at now >= EarliestMs(now).
  void OnStart(int64_t) {
    if (state_ == State::kOpen) state_ = State::kHalfOpen;
  }
  void OnResult(bool ok, int64_t now) {
    if (threshold_ <= 0) return;
    if (ok) {
      failures_ = 0;
      state_ = State::kClosed;
    } else if (state_ == State::kHalfOpen || ++failures_ >= threshold_) {
      failures_ = 0;
      state_ = State::kOpen;
      opened_at_ = now;
    }
  }

 private:
  int threshold_;
  int64_t open_ms_;
  State state_ = State::kClosed;
  int failures_ = 0;
  int64_t opened_at_ = 0;
};

inline const char* ToString(CircuitBreaker::State s) {
  switch (s) {
    case CircuitBreaker::State::kClosed:
      return "closed";
    case CircuitBreaker::State::kOpen:
      return "open";
    case CircuitBreaker::State::kHalfOpen:
      return "half_open";
  }
  return "closed";
}

enum class Outcome { kOk, kRetryable, kNonRetryable };

// What a retry waited for, passed to the observer just before the attempt runs.
struct RetryEvent {
  int attempt = 0;         // 2, 3, ...
  int64_t backoff_ms = 0;  // the jittered backoff drawn for this attempt
  int64_t delay_ms = 0;    // everything waited since the previous attempt ended (>= backoff)
  int64_t at_ms = 0;       // when the attempt starts, on the clock, since Run began
  CircuitBreaker::State breaker = CircuitBreaker::State::kClosed;  // as the attempt goes
};

// Runs attempts until one returns kOk or kNonRetryable, or max_attempts have run. The breaker
// and the rate limiter live as long as the Retrier, so several Run calls share them.
// `clock` must outlive the Retrier.
class Retrier {
 public:
  Retrier(Policy policy, Clock* clock, uint64_t seed)
      : p_(policy),
        clock_(clock),
        rng_(seed),
        limiter_(p_.rate_max, p_.rate_window_ms),
        breaker_(p_.breaker_threshold, p_.breaker_open_ms) {}

  const CircuitBreaker& breaker() const { return breaker_; }

  // attempt(int n) -> Outcome; observe(const RetryEvent&) before every attempt after the first.
  template <typename Attempt, typename Observe>
  Outcome Run(Attempt attempt, Observe observe) {
    const int64_t start = clock_->NowMs();
    int64_t previous = p_.initial_ms;
    Outcome out = Outcome::kRetryable;
    for (int n = 1; n <= p_.max_attempts; ++n) {
      RetryEvent e;
      int64_t ended = clock_->NowMs();
      if (n > 1) {
        Bounds b = DelayBounds(p_, n, previous);
        e.backoff_ms = rng_.Between(b.lo, b.hi);
        previous = e.backoff_ms;
        clock_->SleepMs(e.backoff_ms);
      }
      WaitGates();
      int64_t now = clock_->NowMs();
      limiter_.Record(now);
      breaker_.OnStart(now);
      if (n > 1) {
        e.attempt = n;
        e.delay_ms = std::max(e.backoff_ms, now - ended);
        e.at_ms = now - start;
        e.breaker = breaker_.state();
        observe(e);
      }
      out = attempt(n);
      breaker_.OnResult(out == Outcome::kOk, clock_->NowMs());
      if (out != Outcome::kRetryable) return out;
    }
    return out;
  }

 private:
  // Sleeps until both the rate limiter and the breaker let an attempt start.
  void WaitGates() {
    for (int64_t now = clock_->NowMs();; now = clock_->NowMs()) {
      int64_t at = std::max(limiter_.EarliestMs(now), breaker_.EarliestMs(now));
      if (at <= now) return;
      clock_->SleepMs(at - now);
    }
  }

  Policy p_;
  Clock* clock_;
  Random rng_;
  RateLimiter limiter_;
  CircuitBreaker breaker_;
};

}  // namespace killpoint::retry

#endif  // KILLPOINT_RETRY_RETRY_H_
