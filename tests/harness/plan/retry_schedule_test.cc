#include "plan/retry_schedule.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace killpoint {
namespace {

rc::Gen<RetryPolicy> GenPolicy() {
  return rc::gen::exec([] {
    RetryPolicy p;
    p.max_attempts = *rc::gen::inRange(1, 12);
    p.initial_interval_ms = *rc::gen::inRange<int64_t>(0, 5000);
    p.maximum_interval_ms = p.initial_interval_ms + *rc::gen::inRange<int64_t>(0, 100000);
    p.backoff_coefficient = *rc::gen::element(1.0, 1.5, 2.0, 3.0, 10.0);
    p.jitter = *rc::gen::elementOf(kJitterNames.Values());
    return p;
  });
}

TEST(BaseDelay, GrowsByTheCoefficientUpToTheCap) {
  RetryPolicy p;
  p.initial_interval_ms = 500;
  p.backoff_coefficient = 3;
  p.maximum_interval_ms = 2000;
  EXPECT_EQ(BaseDelay(p, 2), 500);
  EXPECT_EQ(BaseDelay(p, 3), 1500);
  EXPECT_EQ(BaseDelay(p, 4), 2000);
  EXPECT_EQ(BaseDelay(p, 60), 2000);  // no overflow far out
  p.backoff_coefficient = 1.0;        // fixed interval
  EXPECT_EQ(BaseDelay(p, 9), 500);
}

TEST(JitterBounds, FollowTheFormulas) {
  RetryPolicy p;
  p.initial_interval_ms = 100;
  p.backoff_coefficient = 2;
  p.maximum_interval_ms = 1000;
  p.jitter = Jitter::kFull;
  EXPECT_EQ(JitterBounds(p, 3, 0), (DelayBounds{0, 200}));
  p.jitter = Jitter::kEqual;
  EXPECT_EQ(JitterBounds(p, 3, 0), (DelayBounds{100, 200}));
  p.jitter = Jitter::kDecorrelated;
  EXPECT_EQ(JitterBounds(p, 3, 150), (DelayBounds{100, 450}));
  EXPECT_EQ(JitterBounds(p, 3, 900), (DelayBounds{100, 1000}));
}

RC_GTEST_PROP(DrawDelay, LiesWithinTheJitterBoundsAndNeverAboveTheCap, ()) {
  RetryPolicy p = *GenPolicy();
  int attempt = *rc::gen::inRange(2, 40);
  int64_t previous = *rc::gen::inRange<int64_t>(0, 200000);
  PlanRng rng(*rc::gen::arbitrary<uint64_t>());
  int64_t d = DrawDelay(p, attempt, previous, rng);
  DelayBounds b = JitterBounds(p, attempt, previous);
  RC_ASSERT(b.lo <= d);
  RC_ASSERT(d <= b.hi);
  RC_ASSERT(d <= p.maximum_interval_ms);
  RC_ASSERT(d >= 0);
}

RC_GTEST_PROP(DrawDelay, DecorrelatedStaysBetweenTheInitialIntervalAndThreeTimesThePrevious, ()) {
  RetryPolicy p = *GenPolicy();
  p.jitter = Jitter::kDecorrelated;
  PlanRng rng(*rc::gen::arbitrary<uint64_t>());
  int64_t previous = p.initial_interval_ms;
  for (int attempt = 2; attempt < 20; ++attempt) {
    int64_t d = DrawDelay(p, attempt, previous, rng);
    RC_ASSERT(d >= std::min(p.initial_interval_ms, p.maximum_interval_ms));
    RC_ASSERT(d <= std::min(p.maximum_interval_ms, std::max(p.initial_interval_ms, 3 * previous)));
    previous = d;
  }
}

RC_GTEST_PROP(DrawDelay, WithoutJitterIsTheBaseDelay, ()) {
  RetryPolicy p = *GenPolicy();
  p.jitter = Jitter::kNone;
  int attempt = *rc::gen::inRange(2, 30);
  PlanRng rng(*rc::gen::arbitrary<uint64_t>());
  RC_ASSERT(DrawDelay(p, attempt, 0, rng) == p.DelayBeforeAttempt(attempt));
}

TEST(RateWindow, HoldsTheThirdStartUntilTheFirstLeavesTheWindow) {
  RateWindow w({2, 1000});
  EXPECT_EQ(w.EarliestStart(0), 0);
  w.Record(0);
  w.Record(10);
  EXPECT_EQ(w.EarliestStart(20), 1000);
  w.Record(1000);
  EXPECT_EQ(w.EarliestStart(1000), 1010);
  EXPECT_EQ(RateWindow({0, 0}).EarliestStart(7), 7);  // no limit
}

RC_GTEST_PROP(RateWindow, NeverLetsMoreThanMaxStartsIntoAWindow, ()) {
  RateLimit limit{*rc::gen::inRange(1, 5), *rc::gen::inRange<int64_t>(1, 5000)};
  RateWindow w(limit);
  std::vector<int64_t> starts;
  int64_t now = 0;
  for (int i = 0; i < 30; ++i) {
    now += *rc::gen::inRange<int64_t>(0, 3000);
    int64_t at = w.EarliestStart(now);
    RC_ASSERT(at >= now);
    w.Record(at);
    starts.push_back(at);
    now = at;
    int in_window = 0;
    for (int64_t s : starts) in_window += at - s < limit.window_ms ? 1 : 0;
    RC_ASSERT(in_window <= limit.max_attempts);
  }
}

TEST(Breaker, OpensAfterTheThresholdProbesAndCloses) {
  Breaker b({2, 1000});
  EXPECT_TRUE(b.OnResult(false, 0).empty());
  auto opened = b.OnResult(false, 5);
  ASSERT_EQ(opened.size(), 1u);
  EXPECT_EQ(opened[0], (BreakerTransition{BreakerState::kClosed, BreakerState::kOpen, 5}));
  EXPECT_EQ(b.EarliestStart(100), 1005);
  EXPECT_EQ(b.OnStart(1005)[0].to, BreakerState::kHalfOpen);
  EXPECT_EQ(b.OnResult(true, 1005)[0].to, BreakerState::kClosed);
}

TEST(Breaker, AFailedProbeOpensItAgain) {
  Breaker b({1, 1000});
  b.OnResult(false, 0);
  b.OnStart(1000);
  auto again = b.OnResult(false, 1000);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0], (BreakerTransition{BreakerState::kHalfOpen, BreakerState::kOpen, 1000}));
  EXPECT_EQ(b.EarliestStart(1000), 2000);
}

TEST(Breaker, WithoutAThresholdNeverOpens) {
  Breaker b({0, 0});
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(b.OnResult(false, i).empty());
  EXPECT_EQ(b.EarliestStart(3), 3);
}

// Attempts driven through EarliestStart never start while the breaker is open, and every
// transition continues from the state the last one left.
RC_GTEST_PROP(Breaker, NeverLetsAnAttemptThroughWhileOpen, ()) {
  CircuitBreakerPolicy policy{*rc::gen::inRange(1, 4), *rc::gen::inRange<int64_t>(1, 5000)};
  Breaker b(policy);
  BreakerState state = BreakerState::kClosed;
  int64_t now = 0, opened_at = -1;
  for (int i = 0; i < 40; ++i) {
    now = b.EarliestStart(now + *rc::gen::inRange<int64_t>(0, 2000));
    if (opened_at >= 0) RC_ASSERT(now >= opened_at + policy.open_ms);
    for (const auto& t : b.OnStart(now)) {
      RC_ASSERT(t.from == state);
      state = t.to;
    }
    RC_ASSERT(b.state() != BreakerState::kOpen);
    opened_at = -1;
    for (const auto& t : b.OnResult(*rc::gen::arbitrary<bool>(), now)) {
      RC_ASSERT(t.from == state);
      state = t.to;
      if (t.to == BreakerState::kOpen) opened_at = t.at_ms;
    }
    RC_ASSERT(b.state() == state);
  }
}

}  // namespace
}  // namespace killpoint
