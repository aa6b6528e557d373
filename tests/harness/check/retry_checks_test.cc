#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "check_fixture.h"
#include "history/event_registry.h"

namespace killpoint {
namespace {

using ::testing::HasSubstr;

constexpr const char* kDay = "2026-11-01";

// Doctored histories: each test breaks one clause of retry_policy_respected.
class RetryChecks : public ::testing::Test {
 protected:
  RetryChecks() {
    RetryPolicy& p = f_.scenario().retry;
    p.max_attempts = 3;
    p.initial_interval_ms = 1000;
    p.backoff_coefficient = 2;
    p.maximum_interval_ms = 3000;
  }
  RetryPolicy& policy() { return f_.scenario().retry; }

  void Wait(const std::string& date, int next_attempt, int64_t delay,
            const char* reason = "backoff") {
    f_.history().SetContext({date, 1, next_attempt - 1});
    f_.history().Add(event::RetryWait::kType,
                     {{"delay_ms", delay}, {"next_attempt", next_attempt}, {"reason", reason}});
    f_.history().AdvanceClock(delay);
  }
  void Attempt(const std::string& date, int attempt, int code) {
    f_.history().SetContext({date, 1, attempt});
    f_.history().Add(event::Spawn::kType, {{"pid", 1}});
    f_.history().Add(event::Exit::kType, {{"code", code}, {"stderr", ""}});
  }
  void Transition(const std::string& from, const std::string& to) {
    f_.history().Add(event::Breaker::kType, {{"from", from}, {"to", to}});
  }
  void JobRetry(int attempt, int64_t backoff, int64_t delay, int64_t at,
                const std::string& breaker = "closed") {
    f_.history().SetContext({kDay, 1, 1});
    f_.history().Add(event::JobRetry::kType, {{"key", "publish-2026-11-01"},
                                              {"attempt", attempt},
                                              {"backoff_ms", backoff},
                                              {"delay_ms", delay},
                                              {"at_ms", at},
                                              {"breaker", breaker}});
  }
  void UseJobPolicy() {
    RetryPolicy job;
    job.max_attempts = 3;
    job.initial_interval_ms = 20;
    job.backoff_coefficient = 2;
    job.maximum_interval_ms = 50;
    f_.scenario().job_retry = job;
  }
  Verdict Check() { return f_.Check("retry_policy_respected"); }
  std::string Violation() {
    Verdict v = Check();
    EXPECT_FALSE(v.held) << v;
    return v.explanation;
  }

  CheckFixture f_;
};

TEST_F(RetryChecks, HoldsForBackoffThatGrowsUpToTheCap) {
  policy().max_attempts = 4;
  Attempt(kDay, 1, 1);
  Wait(kDay, 2, 1000);
  Attempt(kDay, 2, 1);
  Wait(kDay, 3, 2000);
  Attempt(kDay, 3, 137);
  Wait(kDay, 4, 3000);
  Attempt(kDay, 4, 0);
  Verdict v = Check();
  EXPECT_TRUE(v.held) << v;
}

TEST_F(RetryChecks, CountsAttemptsPerFiring) {
  for (int a = 1; a <= 4; ++a) {
    if (a > 1) Wait(kDay, a, a == 2 ? 1000 : a == 3 ? 2000 : 3000);
    Attempt(kDay, a, 1);
  }
  EXPECT_THAT(Violation(), HasSubstr("attempt 4 of 2026-11-01 ran; the policy allows 3 attempts"));
}

TEST_F(RetryChecks, CatchesARetryWithoutWaiting) {
  Attempt(kDay, 1, 1);
  Attempt(kDay, 2, 0);
  EXPECT_THAT(
      Violation(),
      HasSubstr(
          "attempt 2 of 2026-11-01 came 0 ms after attempt 1; the policy asks at least 1000 ms"));
}

TEST_F(RetryChecks, CatchesADelayThatDoesNotGrow) {
  Attempt(kDay, 1, 1);
  Wait(kDay, 2, 1000);
  Attempt(kDay, 2, 1);
  Wait(kDay, 3, 1000);
  Attempt(kDay, 3, 0);
  EXPECT_THAT(Violation(), HasSubstr("attempt 3 of 2026-11-01 came 1000 ms after attempt 2; the "
                                     "policy asks at least 2000 ms"));
}

TEST_F(RetryChecks, CatchesADelayAboveTheCap) {
  policy().max_attempts = 4;
  Attempt(kDay, 1, 1);
  Wait(kDay, 2, 1000);
  Attempt(kDay, 2, 1);
  Wait(kDay, 3, 2000);
  Attempt(kDay, 3, 1);
  Wait(kDay, 4, 4000);
  Attempt(kDay, 4, 0);
  EXPECT_THAT(Violation(), HasSubstr("attempt 4 of 2026-11-01 waited 4000 ms, above the policy's "
                                     "maximum interval of 3000 ms"));
}

TEST_F(RetryChecks, CatchesAWaitThatTheClockDoesNotShow) {
  Attempt(kDay, 1, 1);
  f_.history().SetContext({kDay, 1, 1});
  f_.history().Add(event::RetryWait::kType,
                   {{"delay_ms", 1000}, {"next_attempt", 2}, {"reason", "backoff"}});
  Attempt(kDay, 2, 0);  // the clock did not move
  EXPECT_THAT(Violation(), HasSubstr("came 0 ms after attempt 1 though its wait was 1000 ms"));
}

TEST_F(RetryChecks, ChecksEachJitterAgainstItsBounds) {
  policy().jitter = Jitter::kEqual;
  Attempt(kDay, 1, 1);
  Wait(kDay, 2, 400);
  Attempt(kDay, 2, 0);
  EXPECT_THAT(Violation(), HasSubstr("the policy asks at least 500 ms (equal jitter)"));
  policy().jitter = Jitter::kFull;
  EXPECT_TRUE(Check().held);
  policy().jitter = Jitter::kDecorrelated;
  EXPECT_THAT(Violation(), HasSubstr("the policy asks at least 1000 ms (decorrelated jitter)"));
}

TEST_F(RetryChecks, DecorrelatedJitterAllowsAtMostThreeTimesThePreviousDelay) {
  policy().jitter = Jitter::kDecorrelated;
  policy().maximum_interval_ms = 60000;
  Attempt(kDay, 1, 1);
  Wait(kDay, 2, 1500);
  Attempt(kDay, 2, 1);
  Wait(kDay, 3, 4600);
  Attempt(kDay, 3, 0);
  EXPECT_THAT(Violation(),
              HasSubstr("waited 4600 ms; the policy's decorrelated jitter allows at most 4500 ms"));
}

TEST_F(RetryChecks, CatchesMoreStartsInAWindowThanTheRateLimitAllows) {
  policy().rate_limit = {2, 10000};
  Attempt("2026-11-01", 1, 0);
  Attempt("2026-11-02", 1, 0);
  Attempt("2026-11-03", 1, 0);
  EXPECT_THAT(Violation(), HasSubstr("the scheduler started 3 attempts within 10000 ms (the last "
                                     "at 0 ms); the rate limit allows 2"));
}

TEST_F(RetryChecks, AcceptsARateLimitWait) {
  policy().rate_limit = {2, 10000};
  Attempt("2026-11-01", 1, 0);
  Attempt("2026-11-02", 1, 0);
  Wait("2026-11-03", 1, 10000, "rate_limit");
  Attempt("2026-11-03", 1, 0);
  Verdict v = Check();
  EXPECT_TRUE(v.held) << v;
}

TEST_F(RetryChecks, CatchesAnAttemptWhileTheBreakerIsOpen) {
  policy().circuit_breaker = {1, 5000};
  Attempt("2026-11-01", 1, 1);
  Transition("closed", "open");
  Attempt("2026-11-02", 1, 0);
  EXPECT_THAT(
      Violation(),
      HasSubstr("attempt 1 of 2026-11-02 started at 0 ms while the circuit breaker was open "
                "(opened at 0 ms after 1 consecutive failures, open until 5000 ms)"));
}

TEST_F(RetryChecks, LetsTheProbeThroughOnceTheBreakerHasBeenOpenLongEnough) {
  policy().circuit_breaker = {1, 5000};
  Attempt("2026-11-01", 1, 1);
  Transition("closed", "open");
  Wait("2026-11-02", 1, 5000, "breaker_open");
  Transition("open", "half_open");
  Attempt("2026-11-02", 1, 0);
  Transition("half_open", "closed");
  Attempt("2026-11-03", 1, 0);
  Verdict v = Check();
  EXPECT_TRUE(v.held) << v;
}

TEST_F(RetryChecks, AFailedProbeOpensTheBreakerAgain) {
  policy().circuit_breaker = {1, 5000};
  Attempt("2026-11-01", 1, 1);
  Wait("2026-11-02", 1, 5000, "breaker_open");
  Attempt("2026-11-02", 1, 1);
  Attempt("2026-11-03", 1, 0);
  EXPECT_THAT(Violation(), HasSubstr("after its half-open probe failed, open until 10000 ms"));
}

TEST_F(RetryChecks, CatchesABreakerTransitionTheStateMachineHasNot) {
  Transition("closed", "half_open");
  EXPECT_THAT(
      Violation(),
      HasSubstr("the circuit breaker went from closed to half_open at 0 ms while it was closed"));
}

TEST_F(RetryChecks, CatchesARetryAfterANonRetryableExit) {
  policy().non_retryable_exit_codes = {4};
  Attempt(kDay, 1, 4);
  Wait(kDay, 2, 1000);
  Attempt(kDay, 2, 0);
  EXPECT_THAT(Violation(), HasSubstr("attempt 2 of 2026-11-01 ran after attempt 1 exited with 4, "
                                     "which the policy says is not retryable"));
}

TEST_F(RetryChecks, HoldsForTheJobsRetriesWithinItsPolicy) {
  UseJobPolicy();
  JobRetry(2, 20, 25, 230);
  JobRetry(3, 40, 40, 280);
  Verdict v = Check();
  EXPECT_TRUE(v.held) << v;
  EXPECT_THAT(v.explanation, HasSubstr("the job's 2 in-process retries kept its own"));
}

TEST_F(RetryChecks, CatchesTheJobsTightLoop) {
  UseJobPolicy();
  JobRetry(2, 0, 0, 1);
  EXPECT_THAT(
      Violation(),
      HasSubstr("the job's attempt 2 of publish-2026-11-01 (in scheduler attempt 1 of 2026-11-01) "
                "came 0 ms after attempt 1; the policy asks at least 20 ms"));
}

TEST_F(RetryChecks, CatchesTheJobsAttemptsBeyondItsMaximum) {
  UseJobPolicy();
  JobRetry(2, 20, 20, 20);
  JobRetry(3, 40, 40, 60);
  JobRetry(4, 50, 50, 110);
  EXPECT_THAT(
      Violation(),
      HasSubstr(
          "the job's attempt 4 of publish-2026-11-01 (in scheduler attempt 1 of 2026-11-01) ran; "
          "the job's policy allows 3 attempts"));
}

TEST_F(RetryChecks, CatchesTheJobsBackoffAboveItsCap) {
  UseJobPolicy();
  f_.scenario().job_retry->max_attempts = 5;
  JobRetry(2, 20, 20, 20);
  JobRetry(3, 40, 40, 60);
  JobRetry(4, 80, 80, 140);
  EXPECT_THAT(Violation(), HasSubstr("waited 80 ms, above the policy's maximum interval of 50 ms"));
}

TEST_F(RetryChecks, CatchesTheJobsAttemptWhileItsBreakerIsOpen) {
  UseJobPolicy();
  JobRetry(2, 20, 20, 20, "open");
  EXPECT_THAT(Violation(), HasSubstr("went while its circuit breaker was open"));
}

// The job's breaker (threshold 2, open 100 ms): attempt 3 follows two consecutive failures,
// so it is the half-open probe and starts at least 100 ms after attempt 2 started.
class JobBreaker : public RetryChecks {
 protected:
  void SetUp() override {
    UseJobPolicy();
    f_.scenario().job_retry->max_attempts = 4;
    f_.scenario().job_retry->circuit_breaker = {2, 100};
  }
};

TEST_F(JobBreaker, HoldsForAProbeAfterTheOpenInterval) {
  JobRetry(2, 20, 20, 20);
  JobRetry(3, 40, 110, 135, "half_open");
  JobRetry(4, 50, 105, 250, "half_open");  // the probe failed: open again, another probe
  Verdict v = Check();
  EXPECT_TRUE(v.held) << v;
}

TEST_F(JobBreaker, CatchesAJobWhoseBreakerNeverOpens) {
  JobRetry(2, 20, 20, 20);
  JobRetry(3, 40, 40, 60);  // 40 ms after attempt 2: the breaker was ignored
  EXPECT_THAT(Violation(), HasSubstr("the job's attempt 3 of publish-2026-11-01 (in scheduler "
                                     "attempt 1 of 2026-11-01) started 40 ms after attempt 2 did, "
                                     "after 2 consecutive failures (its breaker opens at 2); an "
                                     "open breaker waits 100 ms before its probe"));
}

TEST_F(JobBreaker, CatchesAProbeThatSaysItsBreakerIsClosed) {
  JobRetry(2, 20, 20, 20);
  JobRetry(3, 40, 110, 135, "closed");
  EXPECT_THAT(Violation(), HasSubstr("reported its breaker 'closed' after 2 consecutive failures "
                                     "(its breaker opens at 2); that attempt is the breaker's "
                                     "half-open probe"));
}

TEST_F(JobBreaker, CatchesASecondProbeTooSoonAfterAFailedOne) {
  JobRetry(2, 20, 20, 20);
  JobRetry(3, 40, 110, 135, "half_open");
  JobRetry(4, 50, 50, 190, "half_open");  // 55 ms after the failed probe started
  EXPECT_THAT(Violation(), HasSubstr("attempt 4 of publish-2026-11-01 (in scheduler attempt 1 of "
                                     "2026-11-01) started 55 ms after attempt 3 did"));
}

TEST_F(RetryChecks, CatchesAGapInTheJobsReports) {
  UseJobPolicy();
  JobRetry(3, 40, 40, 60);
  EXPECT_THAT(Violation(), HasSubstr("was reported after attempt 1; attempts count up from 2"));
}

TEST_F(RetryChecks, CatchesTheJobWaitingLessThanItsBackoff) {
  UseJobPolicy();
  JobRetry(2, 20, 5, 5);
  EXPECT_THAT(Violation(), HasSubstr("waited 5 ms, less than its own backoff of 20 ms"));
}

TEST_F(RetryChecks, CatchesTheJobBreakingItsRateLimit) {
  UseJobPolicy();
  f_.scenario().job_retry->rate_limit = {2, 1000};
  JobRetry(2, 20, 20, 20);
  JobRetry(3, 40, 40, 60);
  EXPECT_THAT(Violation(), HasSubstr("the job for publish-2026-11-01 (in scheduler attempt 1 of "
                                     "2026-11-01) started 3 attempts within 1000 ms"));
}

TEST_F(RetryChecks, HoldsWhenEveryRetryAsksTheDownstreamBeforePublishing) {
  UseJobPolicy();
  f_.scenario().job_retry->reload_before_retry = true;
  f_.Publish(kDay, false, 1);  // attempt 1's publish, before any retry
  JobRetry(2, 20, 20, 20);
  f_.history().Add(event::Query::kType, {{"key", "publish-2026-11-01"}, {"count", 0}});
  f_.Publish(kDay, true, 1);
  Verdict v = Check();
  EXPECT_TRUE(v.held) << v;
}

TEST_F(RetryChecks, CatchesARetryThatPublishesWithoutReloading) {
  UseJobPolicy();
  JobRetry(2, 20, 20, 20);
  f_.Publish(kDay, true, 2);
  EXPECT_TRUE(Check().held);  // the policy does not ask for a reload
  f_.scenario().job_retry->reload_before_retry = true;
  EXPECT_THAT(
      Violation(),
      HasSubstr("the job's attempt 2 of publish-2026-11-01 (in scheduler attempt 1 of 2026-11-01) "
                "published again without asking the downstream first"));
}

TEST_F(RetryChecks, IgnoresTheJobsReportsWhenTheScenarioDeclaresNoJobPolicy) {
  JobRetry(2, 0, 0, 0);
  EXPECT_TRUE(Check().held);
}

}  // namespace
}  // namespace killpoint

namespace killpoint {
namespace {

// An overlap's second instance (docs/faults.md) runs beside an attempt; it is no attempt of the
// scheduler's, so it counts toward no maximum and needs no backoff.
TEST_F(RetryChecks, IgnoresTheSecondInstanceOfAnOverlap) {
  policy().max_attempts = 1;
  f_.history().SetContext({kDay, 1, 1});
  f_.history().Add(event::Spawn::kType, {{"pid", 1}});
  f_.history().Add(event::Spawn::kType, {{"pid", 2}, {"instance", 2}});
  f_.history().Add(event::Exit::kType, {{"code", 75}, {"stderr", ""}, {"instance", 2}});
  f_.history().Add(event::Exit::kType, {{"code", 0}, {"stderr", ""}});
  EXPECT_TRUE(Check().held) << Check();
}

}  // namespace
}  // namespace killpoint
