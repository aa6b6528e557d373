#include "reports/timeline.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "history/event_registry.h"
#include "report_fixture.h"
#include "reports/timeline_svg.h"

namespace killpoint {
namespace {

using ::testing::ElementsAre;
using testing::Ev;
using ::testing::HasSubstr;
using ::testing::Not;

std::vector<MarkKind> Kinds(const Lane& lane) {
  std::vector<MarkKind> out;
  for (const Mark& m : lane.marks) out.push_back(m.kind);
  return out;
}

TEST(Timeline, OneLanePerAttemptWithItsMarksWaitAndOutcome) {
  Timeline t = BuildTimeline(testing::DoublePublishHistory());
  ASSERT_EQ(t.lanes.size(), 2u);
  const Lane& first = t.lanes[0];
  EXPECT_EQ(first.Title(), "2026-11-01 #1 a1");
  // The kill carries the point it fell at: no "passed after_publish" mark before it.
  EXPECT_THAT(Kinds(first), ElementsAre(MarkKind::kFailpoint, MarkKind::kPublish, MarkKind::kKill));
  EXPECT_EQ(first.marks[2].label, "after_publish");
  EXPECT_EQ(first.marks[2].detail, "kill -9 at after_publish (hit 1), then the process model");
  EXPECT_EQ(first.outcome, "killed (signal 9)");
  EXPECT_FALSE(first.succeeded);
  EXPECT_EQ(first.wait_before_ms, -1);
  const Lane& retry = t.lanes[1];
  EXPECT_EQ(retry.wait_before_ms, 1000);
  EXPECT_EQ(retry.start_ms, 1000);
  // The second delivery of the same key is the double publish.
  EXPECT_THAT(Kinds(retry), ElementsAre(MarkKind::kDuplicate, MarkKind::kAlert));
  EXPECT_EQ(retry.marks[0].label, "delivery 2");
  EXPECT_EQ(retry.outcome, "exit 0");
  EXPECT_TRUE(retry.succeeded);
}

// Retry strategies (docs/retry.md): waits add up, the job's retries are marks, and the
// breaker, a rate-limit wait and a non-retryable exit are notes.
TEST(Timeline, ShowsRetryStrategies) {
  const std::string d = "2026-11-01";
  std::vector<Event> h = {
      Ev(0, 0, "spawn", d, 1, 1, {{"pid", 10}}),
      Ev(1, 0, "job_retry", d, 1, 1,
         {{"key", "publish-2026-11-01"},
          {"attempt", 2},
          {"backoff_ms", 15},
          {"delay_ms", 215},
          {"at_ms", 215},
          {"breaker", "closed"}}),
      Ev(2, 0, "exit", d, 1, 1, {{"code", 1}}),
      Ev(3, 0, "breaker", d, 1, 1, {{"from", "closed"}, {"to", "open"}}),
      Ev(4, 0, "retry_wait", d, 1, 1,
         {{"delay_ms", 1000}, {"next_attempt", 2}, {"reason", "backoff"}}),
      Ev(5, 1000, "retry_wait", d, 1, 1,
         {{"delay_ms", 4000}, {"next_attempt", 2}, {"reason", "breaker_open"}}),
      Ev(6, 5000, "spawn", d, 1, 2, {{"pid", 11}}),
      Ev(7, 5000, "exit", d, 1, 2, {{"code", 4}}),
      Ev(8, 5000, "non_retryable", d, 1, 2, {{"code", 4}, {"attempts", 2}}),
  };
  Timeline t = BuildTimeline(h);
  ASSERT_EQ(t.lanes.size(), 2u);
  ASSERT_THAT(Kinds(t.lanes[0]), ElementsAre(MarkKind::kRetry));
  EXPECT_EQ(t.lanes[0].marks[0].label, "retry 2");
  EXPECT_EQ(t.lanes[0].marks[0].detail,
            "in-process retry 2 of publish-2026-11-01 after 215ms (backoff 15ms, breaker closed)");
  EXPECT_EQ(t.lanes[1].wait_before_ms, 5000);
  EXPECT_THAT(t.notes, ::testing::Contains("circuit breaker closed -> open at 0s"));
  EXPECT_THAT(t.notes, ::testing::Contains("2026-11-01#1 a2 waited 4s (breaker_open)"));
  EXPECT_THAT(t.notes,
              ::testing::Contains("2026-11-01#1: exit 4 is not retryable, no attempt after 2"));
}

// docs/faults.md: a job's wait for a lock another run held is a mark on its lane, the second
// instance's labelled as such.
TEST(Timeline, MarksAJobsWaitForALock) {
  const std::string d = "2026-11-01";
  std::vector<Event> h = {
      Ev(0, 0, "spawn", d, 1, 1, {{"pid", 10}}),
      Ev(1, 0, "job_wait", d, 1, 1,
         {{"key", "payout lease"},
          {"ms", 93},
          {"acquired", true},
          {"held_by", "instance 1 pid 9"}}),
      Ev(2, 0, "job_wait", d, 1, 1,
         {{"key", "payout.lock"}, {"ms", 508}, {"acquired", false}, {"instance", 2}}),
      Ev(3, 0, "exit", d, 1, 1, {{"code", 0}}),
  };
  Timeline t = BuildTimeline(h);
  ASSERT_EQ(t.lanes.size(), 1u);
  ASSERT_THAT(Kinds(t.lanes[0]), ElementsAre(MarkKind::kLockWait, MarkKind::kLockWait));
  EXPECT_EQ(t.lanes[0].marks[0].label, "wait 93ms");
  EXPECT_EQ(t.lanes[0].marks[0].detail,
            "waited 93ms for payout lease held by instance 1 pid 9: took it");
  EXPECT_EQ(t.lanes[0].marks[1].label, "i2 wait 508ms");
  EXPECT_THAT(t.lanes[0].marks[1].detail, HasSubstr("waited 508ms for payout.lock: gave up"));
  EXPECT_THAT(RenderTimelineLegend(), HasSubstr("waited for a lock"));
}

TEST(Timeline, FinalStateSaysWhatWasDeliveredAndHowEachDateEnded) {
  Timeline t = BuildTimeline(testing::DoublePublishHistory(), {.duplicates_per_date = true});
  ASSERT_EQ(t.final_state.size(), 3u);
  EXPECT_THAT(t.final_state[0], HasSubstr("(2026-11-01): delivered twice (deliveries 1, 2)"));
  EXPECT_EQ(t.final_state[1].substr(0, 3), "k2 ");
  EXPECT_THAT(t.final_state[1], HasSubstr("never delivered; alerted: <script>"));
  EXPECT_THAT(t.final_state[2], ::testing::StartsWith("2026-11-01: delivered twice (DUPLICATE: "
                                                      "under key k<script>"));
  EXPECT_THAT(t.final_state[2], ::testing::EndsWith("; last attempt 2026-11-01 #1 a2 exit 0"));
  EXPECT_THAT(t.notes, ElementsAre("final pass: every date had succeeded, nothing to rerun"));
}

// no_double_publish counts deliveries per date: a second payout of the date under a new
// idempotency key is a duplicate mark, and the final state says the date was paid twice.
TEST(Timeline, ADeliveryOfTheSameDateUnderAnotherKeyIsADuplicate) {
  const std::string d = "2026-11-01";
  auto publish = [&](int seq, int attempt, std::string key, int id) {
    return Ev(seq, 0, "publish", d, 1, attempt,
              {{"key", key}, {"biz_date", d}, {"committed", true}, {"delivery_id", id}});
  };
  std::vector<Event> h = {Ev(0, 0, "spawn", d, 1, 1),
                          publish(1, 1, "uuid-a", 1),
                          Ev(2, 0, "exit", d, 1, 1, {{"code", 137}, {"signal", 9}}),
                          Ev(3, 0, "spawn", d, 1, 2),
                          publish(4, 2, "uuid-b", 2),
                          Ev(5, 0, "exit", d, 1, 2, {{"code", 0}})};
  TimelineOptions per_date = TimelineOptionsFor({"no_loss"}, {"no_double_publish"});
  ASSERT_TRUE(per_date.duplicates_per_date);
  Timeline t = BuildTimeline(h, per_date);
  ASSERT_EQ(t.lanes.size(), 2u);
  EXPECT_THAT(Kinds(t.lanes[0]), ElementsAre(MarkKind::kPublish));
  ASSERT_THAT(Kinds(t.lanes[1]), ElementsAre(MarkKind::kDuplicate));
  EXPECT_EQ(t.lanes[1].marks[0].detail,
            "publish uuid-b: delivery 2 (delivery number 2 for 2026-11-01, under another key: "
            "uuid-a)");
  ASSERT_EQ(t.final_state.size(), 3u);
  EXPECT_EQ(t.final_state[0],
            "uuid-a (2026-11-01): delivered once (delivery 1), but its date was delivered twice "
            "under 2 keys: uuid-a, uuid-b");
  EXPECT_THAT(t.final_state[2], ::testing::StartsWith("2026-11-01: delivered twice (DUPLICATE: "
                                                      "under 2 keys: uuid-a, uuid-b)"));
  // A scenario that counts per key (one_delivery_per_key: orders of one date) sees no duplicate.
  t = BuildTimeline(h, TimelineOptionsFor({"one_delivery_per_key"}));
  EXPECT_THAT(Kinds(t.lanes[1]), ElementsAre(MarkKind::kPublish));
  EXPECT_EQ(t.final_state[0], "uuid-a (2026-11-01): delivered once (delivery 1)");
  EXPECT_THAT(t.final_state[2], ::testing::StartsWith("2026-11-01: delivered twice (under 2 keys"));
}

// A kill before a write reads as one line, not "passed write:x" then "kill -9 before write:x".
TEST(Timeline, AKillCarriesThePointItFellAt) {
  Timeline t = BuildTimeline(
      {Ev(0, 0, "spawn", "d", 1, 1),
       Ev(1, 0, "failpoint", "d", 1, 1, {{"point", "write:x"}, {"hit", 1}, {"bytes", 118}}),
       Ev(2, 0, "kill", "d", 1, 1, {{"point", "write:x"}, {"hit", 1}, {"when", "before"}})});
  ASSERT_EQ(t.lanes.size(), 1u);
  ASSERT_THAT(Kinds(t.lanes[0]), ElementsAre(MarkKind::kKill));
  EXPECT_EQ(t.lanes[0].marks[0].detail,
            "kill -9 before write:x (hit 1, 118 bytes not written), then the process model");
  t = BuildTimeline(
      {Ev(0, 0, "spawn", "d", 1, 1),
       Ev(1, 0, "failpoint", "d", 1, 1, {{"point", "write:x"}, {"hit", 2}, {"bytes", 9}}),
       Ev(2, 0, "kill", "d", 1, 1,
          {{"point", "write:x"}, {"hit", 2}, {"when", "mid"}, {"model", "torn"}})});
  ASSERT_THAT(Kinds(t.lanes[0]), ElementsAre(MarkKind::kKill));
  EXPECT_EQ(t.lanes[0].marks[0].detail,
            "kill -9 mid write:x (hit 2, 9 bytes, a prefix of them written), then the torn model");
  // Another hit of the point stays a passed point of its own.
  t = BuildTimeline({Ev(0, 0, "spawn", "d", 1, 1),
                     Ev(1, 0, "failpoint", "d", 1, 1, {{"point", "p"}, {"hit", 1}}),
                     Ev(2, 0, "kill", "d", 1, 1, {{"point", "p"}, {"hit", 2}})});
  EXPECT_THAT(Kinds(t.lanes[0]), ElementsAre(MarkKind::kFailpoint, MarkKind::kKill));
}

// A planned mid kill says what it did to the write (run/mid_cut.h): under process a cut at a
// page boundary of the file, or no cut at all, with why.
TEST(Timeline, AMidKillSaysWhereItCutTheWrite) {
  auto kill_at = [](nlohmann::json kill) {
    nlohmann::json failpoint = {{"point", "write:x"}, {"hit", 1}, {"bytes", kill["bytes"]}};
    kill["point"] = "write:x";
    kill["hit"] = 1;
    Timeline t =
        BuildTimeline({Ev(0, 0, "spawn", "d", 1, 1), Ev(1, 0, "failpoint", "d", 1, 1, failpoint),
                       Ev(2, 0, "kill", "d", 1, 1, kill)});
    EXPECT_THAT(Kinds(t.lanes.at(0)), ElementsAre(MarkKind::kKill));
    return t.lanes.at(0).marks.at(0).detail;
  };
  EXPECT_EQ(kill_at({{"when", "mid"},
                     {"model", "process"},
                     {"bytes", 10000},
                     {"offset", 100},
                     {"kept", 3996}}),
            "kill -9 mid write:x (hit 1, 10000 bytes at offset 100, the first 3996 written, up "
            "to the page boundary at 4096), then the process model");
  EXPECT_EQ(
      kill_at({{"when", "mid"}, {"model", "torn"}, {"bytes", 9}, {"offset", 0}, {"kept", 4}}),
      "kill -9 mid write:x (hit 1, 9 bytes at offset 0, the first 4 written), then the torn model");
  EXPECT_EQ(kill_at({{"when", "before"},
                     {"model", "process"},
                     {"bytes", 118},
                     {"offset", 0},
                     {"planned", "mid"},
                     {"uncut", "one_page"}}),
            "kill -9 before write:x (hit 1, 118 bytes at offset 0 not written), planned mid: the "
            "write lies within one page of the file, and a kill -9 stops a write only between "
            "pages, then the process model");
  EXPECT_EQ(kill_at({{"when", "before"},
                     {"model", "process"},
                     {"bytes", 118},
                     {"planned", "mid"},
                     {"uncut", "no_offset"}}),
            "kill -9 before write:x (hit 1, 118 bytes not written), planned mid: the interception "
            "did not say where in the file the write lands (a shim or supervisor older than "
            "protocol v1.7), so no page boundary was known to cut it at, then the process model");
}

TEST(Timeline, MarksTheFinalPassGiveUpAndTimeout) {
  const std::string d = "2026-11-02";
  Timeline t = BuildTimeline(
      {Ev(0, 0, "spawn", d, 1, 1), Ev(1, 0, "timeout", d, 1, 1, {{"timeout_ms", 500}}),
       Ev(2, 0, "exit", d, 1, 1, {{"code", 137}, {"signal", 9}}),
       Ev(3, 0, "give_up", d, 1, 1, {{"attempts", 1}}),
       Ev(4, 0, "final_pass", "", 0, 0, {{"biz_dates", {d}}}), Ev(5, 0, "spawn", d, 2, 1),
       Ev(6, 0, "publish", d, 2, 1,
          {{"key", "k"}, {"committed", false}, {"fault", "fail_before_commit"}}),
       Ev(7, 0, "exit", d, 2, 1, {{"code", 1}})});
  ASSERT_EQ(t.lanes.size(), 2u);
  EXPECT_EQ(t.lanes[0].outcome, "timed out after 500ms");
  EXPECT_TRUE(t.lanes[0].gave_up);
  EXPECT_THAT(Kinds(t.lanes[0]), ElementsAre(MarkKind::kTimeout));
  EXPECT_TRUE(t.lanes[1].final_pass);
  EXPECT_EQ(t.lanes[1].Title(), "2026-11-02 #2 a1 (final pass)");
  EXPECT_THAT(Kinds(t.lanes[1]), ElementsAre(MarkKind::kPublishFailed));
  EXPECT_THAT(t.lanes[1].marks[0].detail, HasSubstr("injected fault: fail_before_commit"));
  EXPECT_THAT(t.notes, ElementsAre("final pass (faults stopped) reran: \"2026-11-02\""));
  EXPECT_THAT(t.final_state.front(), "k: never delivered");
}

TEST(Timeline, SaysOnePointNotOnePoints) {
  std::vector<Event> events = {
      Ev(0, 0, "spawn", "d", 1, 1),
      Ev(1, 0, event::PointsPassed::kType, "d", 1, 1, {{"points", {{"fsync:f", 1}}}})};
  Timeline t = BuildTimeline(events);
  ASSERT_EQ(t.lanes.size(), 1u);
  ASSERT_EQ(t.lanes[0].marks.size(), 1u);
  EXPECT_EQ(t.lanes[0].marks[0].label, "1 point");
  EXPECT_EQ(t.lanes[0].marks[0].detail,
            "this attempt passed 1 syscall point not armed (counted at its end, in no order): "
            "fsync:f x1");
}

// Issue 33: job.setup's crash points (no date, before any attempt) are one labelled note, not
// a bare line each among the final state's.
TEST(Timeline, SummarizesTheSetupsCrashPointsInOneLabelledNote) {
  std::vector<Event> events;
  for (int i = 0; i < 33; ++i) {
    events.push_back(Ev(i, 0, event::Failpoint::kType, "", 0, 0,
                        {{"point", "mkdir:repo/d" + std::to_string(i)}}));
  }
  events.push_back(Ev(40, 0, event::Setup::kType, "", 0, 0, {{"exit_code", 0}, {"stderr", ""}}));
  events.push_back(Ev(41, 0, "spawn", "2026-11-01", 1, 1));
  Timeline t = BuildTimeline(events);
  ASSERT_EQ(t.notes.size(), 1u);
  EXPECT_EQ(t.notes[0],
            "job.setup exited 0, passing 33 crash points of its own (mkdir:repo/d0, mkdir:repo/d1, "
            "mkdir:repo/d2, mkdir:repo/d3, mkdir:repo/d4, ...)");
  for (const std::string& line : t.final_state) EXPECT_THAT(line, Not(HasSubstr("mkdir:")));
}

// Issue 33: a job that never calls the downstream (a CSV export, a git commit) is not said to
// have "never delivered" its dates: the final state says how each date ended.
TEST(Timeline, AJobWithoutADownstreamIsNotSaidToHaveNeverDelivered) {
  std::vector<Event> events = {Ev(0, 0, "spawn", "2026-11-01", 1, 1),
                               Ev(1, 5, event::Exit::kType, "2026-11-01", 1, 1, {{"code", 0}})};
  Timeline t = BuildTimeline(events);
  ASSERT_EQ(t.final_state.size(), 1u);
  EXPECT_EQ(t.final_state[0], "2026-11-01: last attempt 2026-11-01 #1 a1 exit 0");
}

// A write the shim did not see (docs/syscall-shim.md, "Unseen writes") says so, where the
// shim noticed it, whether passed one way, passed or killed at.
TEST(Timeline, SaysWhichWritesTheShimDidNotSee) {
  std::vector<Event> events = {
      Ev(0, 0, "spawn", "d", 1, 1),
      Ev(1, 0, event::PointsPassed::kType, "d", 1, 1,
         {{"points", {{"write:out", 1}}}, {"unseen", {{"write:out", "dup2"}}}}),
      Ev(2, 0, "failpoint", "d", 1, 1,
         {{"point", "write:<tmp1>"}, {"hit", 1}, {"bytes", 3}, {"unseen", "close"}}),
      Ev(3, 0, "kill", "d", 1, 1,
         {{"point", "write:<tmp1>"}, {"hit", 1}, {"when", "after"}, {"unseen", "close"}})};
  Timeline t = BuildTimeline(events);
  ASSERT_EQ(t.lanes.size(), 1u);
  ASSERT_EQ(t.lanes[0].marks.size(), 2u);  // the write's mark is its kill's
  EXPECT_THAT(
      t.lanes[0].marks[0].detail,
      HasSubstr(
          "written without a seen write (stdio, a raw syscall): write:out (noticed at dup2)"));
  EXPECT_THAT(t.lanes[0].marks[1].detail,
              HasSubstr("kill -9 after write:<tmp1> (hit 1, 3 bytes written), written without a "
                        "seen write (stdio, a raw syscall): killpoint noticed it at close"));
}

// A downstream point (plan/crash_point.h) is killed at, not before: the point is the moment.
TEST(Timeline, NamesDownstreamPointsAndTheirKill) {
  const std::string p = "downstream:/publish:after_commit";
  std::vector<Event> events = {
      Ev(0, 0, "spawn", "d", 1, 1),
      Ev(1, 0, "kill", "d", 1, 1, {{"point", p}, {"hit", 2}, {"when", "before"}})};
  Timeline t = BuildTimeline(events);
  ASSERT_EQ(t.lanes.size(), 1u);
  ASSERT_EQ(t.lanes[0].marks.size(), 1u);
  EXPECT_EQ(t.lanes[0].marks[0].detail, "kill -9 at " + p + " (hit 2), then the process model");
}

// A command to a service (docs/services.md, "Command points") has a before and an after.
TEST(Timeline, NamesTheMomentOfAKillAtACommandPoint) {
  std::vector<Event> events = {
      Ev(0, 0, "spawn", "d", 1, 1),
      Ev(1, 0, "kill", "d", 1, 1, {{"point", "net:db:INSERT"}, {"hit", 1}, {"when", "after"}})};
  Timeline t = BuildTimeline(events);
  ASSERT_EQ(t.lanes.size(), 1u);
  ASSERT_EQ(t.lanes[0].marks.size(), 1u);
  EXPECT_EQ(t.lanes[0].marks[0].detail,
            "kill -9 after net:db:INSERT (hit 1), then the process model");
}

TEST(Timeline, CollapsesLongRunsOfPassedCrashPointsButKeepsTheLast) {
  std::vector<Event> events = {Ev(0, 0, "spawn", "d", 1, 1)};
  for (int i = 0; i < 10; ++i) {
    events.push_back(Ev(1 + i, 0, "failpoint", "d", 1, 1,
                        {{"point", "write:f" + std::to_string(i)}, {"hit", 1}}));
  }
  events.push_back(Ev(11, 0, "kill", "d", 1, 1,
                      {{"point", "write:f9"}, {"hit", 1}, {"when", "mid"}, {"model", "power"}}));
  events.push_back(
      Ev(12, 0, "rollback", "d", 1, 1, {{"model", "power"}, {"changes", {"f9: truncated"}}}));
  Timeline t = BuildTimeline(events);
  ASSERT_EQ(t.lanes.size(), 1u);
  EXPECT_THAT(Kinds(t.lanes[0]), ElementsAre(MarkKind::kFailpoints, MarkKind::kFailpoint,
                                             MarkKind::kKill, MarkKind::kRollback));
  EXPECT_EQ(t.lanes[0].marks[0].label, "8 points");
  EXPECT_EQ(t.lanes[0].marks[1].label, "write:f8");
  EXPECT_EQ(t.lanes[0].marks[2].label, "write:f9");
  EXPECT_THAT(t.lanes[0].marks[2].detail,
              HasSubstr("kill -9 mid write:f9 (hit 1), then the power model"));
  EXPECT_THAT(t.lanes[0].marks[3].detail, HasSubstr("f9: truncated"));
}

// docs/scenarios.md, "Checked after every crash": what a reader saw after the kill, on its lane.
TEST(Timeline, ShowsWhatAReaderSawAfterTheCrash) {
  std::vector<Event> events = {
      Ev(0, 0, "spawn", "d", 1, 1),
      Ev(1, 0, "kill", "d", 1, 1,
         {{"point", "write:w"}, {"hit", 1}, {"when", "after"}, {"model", "power"}}),
      Ev(2, 0, "crash_check", "d", 1, 1,
         {{"point", "write:w"},
          {"hit", 1},
          {"model", "power"},
          {"verdicts",
           {{{"invariant", "a"}, {"held", true}, {"explanation", "no row"}},
            {{"invariant", "b"}, {"held", false}, {"explanation", "1 row, day=d"}}}}})};
  Timeline t = BuildTimeline(events);
  ASSERT_EQ(t.lanes.size(), 1u);
  ASSERT_THAT(Kinds(t.lanes[0]), ElementsAre(MarkKind::kKill, MarkKind::kCrashCheck));
  EXPECT_EQ(t.lanes[0].marks[1].label, "reader: broken");
  EXPECT_EQ(t.lanes[0].marks[1].detail,
            "after the crash, a reader saw: a held; b VIOLATED: 1 row, day=d");
  EXPECT_THAT(RenderTimelineLegend(), HasSubstr("checked after the crash"));
}

// Issue 20: the fault proxy's fault, on its attempt's lane (docs/services.md).
TEST(Timeline, MarksANetworkFault) {
  std::vector<Event> events = {
      Ev(0, 0, "spawn", "d", 1, 1),
      Ev(1, 0, "net_fault", "d", 1, 1,
         {{"point", "net:db:commit"}, {"action", "drop_answer"}, {"hit", 1}})};
  Timeline t = BuildTimeline(events);
  ASSERT_EQ(t.lanes.size(), 1u);
  ASSERT_THAT(Kinds(t.lanes[0]), ElementsAre(MarkKind::kNetFault));
  EXPECT_EQ(t.lanes[0].marks[0].label, "drop_answer");
  EXPECT_EQ(t.lanes[0].marks[0].detail, "the proxy did drop_answer at net:db:commit (hit 1)");
  EXPECT_THAT(RenderTimelineLegend(), HasSubstr("network fault"));
}

// A server fault (docs/services.md, "Server faults"): a cut line on its attempt's lane.
TEST(Timeline, AServerKillIsACutLineThatCountsWhatWasLost) {
  std::vector<Event> events = {Ev(0, 0, "spawn", "d", 1, 1, {{"pid", 7}}),
                               Ev(1, 0, "server_fault", "d", 1, 1,
                                  {{"service", "db"},
                                   {"kind", "postgres"},
                                   {"action", "kill"},
                                   {"point", "after_commit"},
                                   {"hit", 1},
                                   {"before", 3},
                                   {"lost", 1}})};
  Timeline t = BuildTimeline(events);
  ASSERT_EQ(t.lanes.size(), 1u);
  ASSERT_THAT(Kinds(t.lanes[0]), ElementsAre(MarkKind::kNetFault));
  EXPECT_EQ(t.lanes[0].marks[0].label, "kill db");
  EXPECT_EQ(t.lanes[0].marks[0].detail,
            "the server of db (postgres) was killed at after_commit, 1 of 3 lost");
}

// Issue 18: an attempt's writes outside its sandbox, one mark on its lane naming each path.
TEST(Timeline, MarksTheWritesOutsideTheSandbox) {
  std::vector<Event> events = {
      Ev(0, 0, "spawn", "d", 1, 1),
      Ev(1, 0, "outside_writes", "d", 1, 1,
         {{"writes",
           {{{"path", "$KILLPOINT_WORKDIR/../x"}, {"kind", "trial"}, {"ops", {"open", "rename"}}},
            {{"path", "/tmp/y"}, {"kind", "temp"}, {"ops", {"unlink"}}}}}})};
  Timeline t = BuildTimeline(events);
  ASSERT_EQ(t.lanes.size(), 1u);
  ASSERT_THAT(Kinds(t.lanes[0]), ElementsAre(MarkKind::kOutside));
  EXPECT_EQ(t.lanes[0].marks[0].label, "2 outside");
  EXPECT_THAT(t.lanes[0].marks[0].detail,
              HasSubstr("$KILLPOINT_WORKDIR/../x (open, rename); /tmp/y (unlink)"));
  EXPECT_THAT(RenderTimelineLegend(), HasSubstr("wrote outside the sandbox"));
}

// docs/faults.md: a pause and an overlap on one lane; the second instance is not a lane.
std::vector<Event> OverlapHistory() {
  const std::string d = "2026-11-01";
  return {Ev(0, 0, "spawn", d, 1, 1, {{"pid", 10}}),
          Ev(1, 0, "failpoint", d, 1, 1, {{"point", "after_lock"}, {"hit", 1}}),
          Ev(2, 0, "pause", d, 1, 1, {{"point", "after_lock"}, {"hit", 1}, {"duration_ms", 400}}),
          Ev(3, 0, "overlap", d, 1, 1, {{"point", "after_lock"}, {"hold_ms", 3000}}),
          Ev(4, 0, "spawn", d, 1, 1, {{"pid", 11}, {"instance", 2}}),
          Ev(5, 0, "failpoint", d, 1, 1, {{"point", "after_lock"}, {"hit", 1}, {"instance", 2}}),
          Ev(6, 0, "publish", d, 1, 1,
             {{"key", "k"}, {"committed", true}, {"delivery_id", 1}, {"instance", 2}}),
          Ev(7, 0, "overlap_end", d, 1, 1, {{"point", "after_lock"}, {"second_exited", false}}),
          Ev(8, 0, "resume", d, 1, 1, {{"point", "after_lock"}}),
          Ev(9, 0, "timeout", d, 1, 1, {{"timeout_ms", 500}, {"instance", 2}}),
          Ev(10, 0, "exit", d, 1, 1, {{"code", 137}, {"signal", 9}, {"instance", 2}}),
          Ev(11, 0, "publish", d, 1, 1,
             {{"key", "k"}, {"committed", false}, {"fault", "fail_before_commit"}, {"burst", 1}}),
          Ev(12, 0, "exit", d, 1, 1, {{"code", 0}})};
}

TEST(Timeline, MarksPausesAndTheSecondInstanceOnTheAttemptsLane) {
  Timeline t = BuildTimeline(OverlapHistory());
  ASSERT_EQ(t.lanes.size(), 1u);
  const Lane& lane = t.lanes[0];
  EXPECT_THAT(Kinds(lane), ElementsAre(MarkKind::kFailpoint, MarkKind::kPause, MarkKind::kOverlap,
                                       MarkKind::kFailpoint, MarkKind::kPublish, MarkKind::kOverlap,
                                       MarkKind::kResume, MarkKind::kTimeout, MarkKind::kOverlap,
                                       MarkKind::kPublishFailed));
  EXPECT_EQ(lane.marks[1].label, "pause 400ms");
  EXPECT_EQ(lane.marks[3].label, "i2 after_lock");
  EXPECT_THAT(lane.marks[4].detail, HasSubstr("instance 2: publish k"));
  EXPECT_THAT(lane.marks[5].detail, HasSubstr("the hold ran out"));
  EXPECT_EQ(lane.marks[8].label, "i2 killed (signal 9)");
  EXPECT_THAT(lane.marks[9].detail, HasSubstr("(burst, failure 1)"));
  // The first instance's exit is the attempt's outcome, not the second's timeout or kill.
  EXPECT_EQ(lane.outcome, "exit 0");
  EXPECT_TRUE(lane.succeeded);
  std::string svg = RenderTimelineSvg(t);
  EXPECT_THAT(svg, Not(HasSubstr("<script")));
  EXPECT_THAT(RenderTimelineLegend(), HasSubstr("pause (SIGSTOP)"));
}

// docs/faults.md, "Three instances": the third instance is not a lane either; its marks say i3.
TEST(Timeline, MarksTheSecondsHoldAndTheThirdInstanceOnTheAttemptsLane) {
  const std::string d = "2026-11-01";
  Timeline t = BuildTimeline(
      {Ev(0, 0, "spawn", d, 1, 1, {{"pid", 10}}),
       Ev(1, 0, "overlap", d, 1, 1,
          {{"point", "after_check"}, {"hold_ms", 3000}, {"second_holds_at", "before_pay"}}),
       Ev(2, 0, "spawn", d, 1, 1, {{"pid", 11}, {"instance", 2}}),
       Ev(3, 0, "second_held", d, 1, 1, {{"point", "before_pay"}, {"instance", 2}}),
       Ev(4, 0, "overlap_end", d, 1, 1,
          {{"point", "after_check"}, {"second_exited", false}, {"second_held", true}}),
       Ev(5, 0, "spawn", d, 1, 1, {{"pid", 12}, {"instance", 3}}),
       Ev(6, 0, "failpoint", d, 1, 1, {{"point", "before_pay"}, {"hit", 1}, {"instance", 3}}),
       Ev(7, 0, "exit", d, 1, 1, {{"code", 75}, {"instance", 3}}),
       Ev(8, 0, "second_release", d, 1, 1,
          {{"point", "before_pay"}, {"third_exited", true}, {"instance", 2}}),
       Ev(9, 0, "exit", d, 1, 1, {{"code", 0}, {"instance", 2}}),
       Ev(10, 0, "exit", d, 1, 1, {{"code", 75}})});
  ASSERT_EQ(t.lanes.size(), 1u);
  const Lane& lane = t.lanes[0];
  std::vector<std::string> labels;
  for (const auto& m : lane.marks) labels.push_back(m.label);
  EXPECT_THAT(labels, ElementsAre("i2 start", "i2 held", "release", "i3 start", "i3 before_pay",
                                  "i3 exit 75", "i2 release", "i2 exit 0"));
  EXPECT_THAT(lane.marks[2].detail, HasSubstr("the second instance is held"));
  EXPECT_THAT(lane.marks[3].detail, HasSubstr("instance 3: a third instance of the date starts"));
  EXPECT_THAT(lane.marks[6].detail, HasSubstr("the third instance had exited"));
  EXPECT_EQ(lane.outcome, "exit 75");  // the first instance's
}

TEST(TimelineSvg, EscapesEverythingAndDrawsOneRowPerLane) {
  Timeline t = BuildTimeline(testing::DoublePublishHistory());
  std::string svg = RenderTimelineSvg(t);
  EXPECT_THAT(svg, Not(HasSubstr("<script")));
  EXPECT_THAT(svg, HasSubstr("<title>alert k2: &lt;script&gt;"));
  EXPECT_THAT(svg, HasSubstr(">2026-11-01 #1 a1</text>"));
  EXPECT_THAT(svg, HasSubstr("&#8635; retry after 1s (virtual)"));
  EXPECT_THAT(svg, HasSubstr("height=\"96\""));  // two lanes
  EXPECT_THAT(RenderTimelineLegend(), HasSubstr("</svg> duplicate delivery</span>"));
}

TEST(TimelineSvg, ShortensOnlyVeryLongLabelsWithoutSplittingACharacter) {
  std::string e = "\xC3\xA9";
  std::string label;
  for (int i = 0; i < 42; ++i) label += e;
  Timeline t;
  t.lanes.push_back({});
  t.lanes[0].marks.push_back({MarkKind::kKill, label, ""});
  std::string svg = RenderTimelineSvg(t);
  std::string cut;
  for (int i = 0; i < 40; ++i) cut += e;
  EXPECT_THAT(svg, HasSubstr(">" + cut + "\xE2\x80\xA6</text>"));
  EXPECT_THAT(svg, HasSubstr("<title>" + label + ": </title>"));  // in full on hover
}

// Issue 21: "before_publi..." was cut in a lane with room to spare. A label gets a slot as
// wide as it needs, and its full text is in the tooltip.
TEST(TimelineSvg, DrawsLabelsInFullWhereThereIsRoom) {
  Timeline t = BuildTimeline(
      {Ev(0, 0, "spawn", "d", 1, 1),
       Ev(1, 0, "kill", "d", 1, 1, {{"point", "before_publish_to_the_ledger"}, {"hit", 1}}),
       Ev(2, 0, "rollback", "d", 1, 1, {{"model", "process"}, {"changes", "nothing"}})});
  std::string svg = RenderTimelineSvg(t);
  EXPECT_THAT(svg, HasSubstr("class=\"l\">before_publish_to_the_ledger</text>"));
  EXPECT_THAT(svg, HasSubstr("<title>kill -9 at before_publish_to_the_ledger (hit 1)"));
  // The rollback's mark starts after the kill's label: 28 characters need more than 76px.
  size_t kill = svg.find("class=\"l\">before_publish_to_the_ledger");
  size_t x_at = svg.rfind("x=\"", kill);
  int kill_x = std::stoi(svg.substr(x_at + 3));
  size_t roll = svg.find("class=\"l\">process</text>");
  x_at = svg.rfind("x=\"", roll);
  int roll_x = std::stoi(svg.substr(x_at + 3));
  EXPECT_GE(roll_x - kill_x, 6 * 28 / 2 + 76 / 2);
}

}  // namespace
}  // namespace killpoint
