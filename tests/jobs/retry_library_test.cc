// killpoint/retry.h with a fake clock: no test sleeps.
#include <gtest/gtest.h>
#include <killpoint/retry.h>
#include <rapidcheck/gtest.h>

#include <vector>

namespace killpoint::retry {
namespace {

class FakeClock : public Clock {
 public:
  int64_t NowMs() override { return now_; }
  void SleepMs(int64_t ms) override {
    sleeps.push_back(ms);
    now_ += ms;
  }
  void Advance(int64_t ms) { now_ += ms; }
  std::vector<int64_t> sleeps;

 private:
  int64_t now_ = 0;
};

Policy Exponential() {
  Policy p;
  p.max_attempts = 6;
  p.initial_ms = 100;
  p.coefficient = 2;
  p.maximum_ms = 500;
  return p;
}

// Runs attempts that all fail retryably; returns the events the observer saw.
std::vector<RetryEvent> FailEveryTime(const Policy& p, FakeClock& clock, int* attempts = nullptr) {
  Retrier r(p, &clock, 1);
  std::vector<RetryEvent> seen;
  int n = 0;
  Outcome out = r.Run([&](int) { return ++n, Outcome::kRetryable; },
                      [&](const RetryEvent& e) { seen.push_back(e); });
  EXPECT_EQ(out, Outcome::kRetryable);
  if (attempts) *attempts = n;
  return seen;
}

TEST(Retrier, FixedIntervalWaitsTheSameEachTime) {
  Policy p = Exponential();
  p.coefficient = 1.0;
  p.max_attempts = 4;
  FakeClock clock;
  FailEveryTime(p, clock);
  EXPECT_EQ(clock.sleeps, (std::vector<int64_t>{100, 100, 100}));
}

TEST(Retrier, ExponentialBackoffGrowsUpToTheCap) {
  FakeClock clock;
  int attempts = 0;
  std::vector<RetryEvent> seen = FailEveryTime(Exponential(), clock, &attempts);
  EXPECT_EQ(attempts, 6);
  EXPECT_EQ(clock.sleeps, (std::vector<int64_t>{100, 200, 400, 500, 500}));
  ASSERT_EQ(seen.size(), 5u);
  EXPECT_EQ(seen[0].attempt, 2);
  EXPECT_EQ(seen[4].attempt, 6);
  EXPECT_EQ(seen[4].at_ms, 1700);
}

TEST(Retrier, StopsAtTheFirstSuccess) {
  FakeClock clock;
  Retrier r(Exponential(), &clock, 1);
  int n = 0;
  Outcome out = r.Run([&](int a) { return ++n, a == 3 ? Outcome::kOk : Outcome::kRetryable; },
                      [](const RetryEvent&) {});
  EXPECT_EQ(out, Outcome::kOk);
  EXPECT_EQ(n, 3);
}

TEST(Retrier, DoesNotRetryANonRetryableError) {
  FakeClock clock;
  Retrier r(Exponential(), &clock, 1);
  int n = 0;
  Outcome out = r.Run([&](int) { return ++n, Outcome::kNonRetryable; }, [](const RetryEvent&) {});
  EXPECT_EQ(out, Outcome::kNonRetryable);
  EXPECT_EQ(n, 1);
  EXPECT_TRUE(clock.sleeps.empty());
}

TEST(Retrier, ReportsTheWholeWaitIncludingTheTimeAnAttemptTook) {
  FakeClock clock;
  Retrier r(Exponential(), &clock, 1);
  std::vector<RetryEvent> seen;
  r.Run(
      [&](int a) {
        clock.Advance(300);  // a timeout
        return a == 2 ? Outcome::kOk : Outcome::kRetryable;
      },
      [&](const RetryEvent& e) { seen.push_back(e); });
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].backoff_ms, 100);
  EXPECT_EQ(seen[0].delay_ms, 100);
  EXPECT_EQ(seen[0].at_ms, 400);
}

TEST(CircuitBreaker, OpensWaitsAndLetsOneProbeThrough) {
  Policy p = Exponential();
  p.initial_ms = 10;
  p.maximum_ms = 10;
  p.breaker_threshold = 2;
  p.breaker_open_ms = 1000;
  FakeClock clock;
  Retrier r(p, &clock, 1);
  std::vector<RetryEvent> seen;
  Outcome out = r.Run([&](int a) { return a == 3 ? Outcome::kOk : Outcome::kRetryable; },
                      [&](const RetryEvent& e) { seen.push_back(e); });
  EXPECT_EQ(out, Outcome::kOk);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].breaker, CircuitBreaker::State::kClosed);
  // Two failures opened it at 10 ms: attempt 3 waits its backoff, then the rest of open_ms.
  EXPECT_EQ(seen[1].breaker, CircuitBreaker::State::kHalfOpen);
  EXPECT_EQ(seen[1].at_ms, 1010);
  EXPECT_EQ(seen[1].backoff_ms, 10);
  EXPECT_EQ(seen[1].delay_ms, 1000);
  EXPECT_EQ(r.breaker().state(), CircuitBreaker::State::kClosed);
}

TEST(CircuitBreaker, AFailedProbeOpensItAgain) {
  CircuitBreaker b(1, 100);
  b.OnResult(false, 0);
  EXPECT_EQ(b.state(), CircuitBreaker::State::kOpen);
  EXPECT_EQ(b.EarliestMs(50), 100);
  b.OnStart(100);
  EXPECT_EQ(b.state(), CircuitBreaker::State::kHalfOpen);
  b.OnResult(false, 120);
  EXPECT_EQ(b.state(), CircuitBreaker::State::kOpen);
  EXPECT_EQ(b.EarliestMs(120), 220);
}

TEST(RateLimiter, HoldsAttemptsBeyondTheWindowsBudget) {
  Policy p = Exponential();
  p.initial_ms = 0;
  p.maximum_ms = 0;
  p.max_attempts = 5;
  p.rate_max = 2;
  p.rate_window_ms = 1000;
  FakeClock clock;
  std::vector<RetryEvent> seen = FailEveryTime(p, clock);
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[0].at_ms, 0);
  EXPECT_EQ(seen[1].at_ms, 1000);
  EXPECT_EQ(seen[2].at_ms, 1000);
  EXPECT_EQ(seen[3].at_ms, 2000);
}

rc::Gen<Policy> GenPolicy() {
  return rc::gen::exec([] {
    Policy p;
    p.max_attempts = *rc::gen::inRange(1, 15);
    p.initial_ms = *rc::gen::inRange<int64_t>(0, 1000);
    p.maximum_ms = p.initial_ms + *rc::gen::inRange<int64_t>(0, 10000);
    p.coefficient = *rc::gen::element(1.0, 1.5, 2.0, 3.0);
    p.jitter =
        *rc::gen::element(Jitter::kNone, Jitter::kFull, Jitter::kEqual, Jitter::kDecorrelated);
    if (*rc::gen::arbitrary<bool>()) {
      p.rate_max = *rc::gen::inRange(1, 4);
      p.rate_window_ms = *rc::gen::inRange<int64_t>(1, 3000);
    }
    if (*rc::gen::arbitrary<bool>()) {
      p.breaker_threshold = *rc::gen::inRange(1, 4);
      p.breaker_open_ms = *rc::gen::inRange<int64_t>(1, 3000);
    }
    return p;
  });
}

// Whatever the policy and however long attempts take: each backoff lies within its jitter
// bounds and the cap, the wait covers the backoff, no window holds more starts than the rate
// limit allows, the breaker is never open as an attempt goes, and attempts stop at the maximum.
RC_GTEST_PROP(Retrier, KeepsItsPolicy, ()) {
  Policy p = *GenPolicy();
  FakeClock clock;
  Retrier r(p, &clock, *rc::gen::arbitrary<uint64_t>());
  std::vector<int64_t> durations =
      *rc::gen::container<std::vector<int64_t>>(15, rc::gen::inRange<int64_t>(0, 500));
  std::vector<bool> results =
      *rc::gen::container<std::vector<bool>>(15, rc::gen::arbitrary<bool>());
  std::vector<int64_t> starts;
  int64_t previous = p.initial_ms;
  int n = 0;
  r.Run(
      [&](int a) {
        RC_ASSERT(a == ++n);
        if (a == 1) starts.push_back(clock.NowMs());
        clock.Advance(durations[static_cast<size_t>(a - 1)]);
        return results[static_cast<size_t>(a - 1)] ? Outcome::kOk : Outcome::kRetryable;
      },
      [&](const RetryEvent& e) {
        Bounds b = DelayBounds(p, e.attempt, previous);
        RC_ASSERT(e.backoff_ms >= b.lo);
        RC_ASSERT(e.backoff_ms <= b.hi);
        RC_ASSERT(e.backoff_ms <= p.maximum_ms);
        RC_ASSERT(e.delay_ms >= e.backoff_ms);
        RC_ASSERT(e.breaker != CircuitBreaker::State::kOpen);
        previous = e.backoff_ms;
        starts.push_back(clock.NowMs());
      });
  RC_ASSERT(n <= p.max_attempts);
  if (p.rate_max > 0) {
    for (size_t i = 0; i < starts.size(); ++i) {
      int in_window = 0;
      for (size_t j = 0; j <= i; ++j) in_window += starts[i] - starts[j] < p.rate_window_ms ? 1 : 0;
      RC_ASSERT(in_window <= p.rate_max);
    }
  }
}

RC_GTEST_PROP(DelayBounds, DecorrelatedStaysBetweenTheInitialAndThreeTimesThePrevious, ()) {
  Policy p = *GenPolicy();
  p.jitter = Jitter::kDecorrelated;
  int64_t previous = *rc::gen::inRange<int64_t>(0, 100000);
  Bounds b = DelayBounds(p, *rc::gen::inRange(2, 30), previous);
  RC_ASSERT(b.lo == std::min(p.maximum_ms, p.initial_ms));
  RC_ASSERT(b.hi == std::min(p.maximum_ms, std::max(p.initial_ms, 3 * previous)));
  RC_ASSERT(b.lo <= b.hi);
}

}  // namespace
}  // namespace killpoint::retry
