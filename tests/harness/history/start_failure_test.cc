// A job that never ran, from the history alone (history/start_failure.h): every attempt failed
// with one exit code before any crash point or downstream call.
#include "history/start_failure.h"

#include <gtest/gtest.h>

#include "history/event_registry.h"

namespace killpoint {
namespace {

Event At(const char* type, int attempt, nlohmann::json data = nlohmann::json::object()) {
  return {0, 0, type, "2026-11-01", 1, attempt, std::move(data)};
}

Event Exit(int attempt, int code, const std::string& err = "") {
  return At(event::Exit::kType, attempt, {{"code", code}, {"stderr", err}});
}

// Two attempts and a final pass that all exit 127 at once.
std::vector<Event> NotFoundThrice() {
  const std::string err = "sh: 1: payout.py: not found\n";
  return {
      At(event::TrialStart::kType, 0), At(event::Spawn::kType, 1), Exit(1, 127, err),
      At(event::Spawn::kType, 2),      Exit(2, 127, err),          At(event::FinalPass::kType, 0),
      At(event::Spawn::kType, 3),      Exit(3, 127, err)};
}

TEST(StartFailureOf, EveryAttemptFailingTheSameWayAtOnceIsOne) {
  auto f = StartFailureOf(NotFoundThrice());
  ASSERT_TRUE(f);
  EXPECT_EQ(f->code, 127);
  EXPECT_EQ(f->stderr_tail, "sh: 1: payout.py: not found\n");
  EXPECT_EQ(StartFailureHint(127), "127: command not found");
}

TEST(StartFailureOf, PointsPassedWithNoCountIsStillBeforeAnyPoint) {
  std::vector<Event> events = NotFoundThrice();
  events.insert(events.begin() + 3,
                At(event::PointsPassed::kType, 1, {{"points", nlohmann::json::object()}}));
  EXPECT_TRUE(StartFailureOf(events));
  events.insert(events.begin() + 3,
                At(event::PointsPassed::kType, 1, {{"points", {{"write:x", 0}}}}));
  EXPECT_TRUE(StartFailureOf(events));
}

// Issue 33: job.setup's file operations, recorded before any attempt and with no date, are the
// setup's crash points, not the job's: a job that then never starts still never ran.
TEST(StartFailureOf, TheSetupsCrashPointsAreNotTheJobs) {
  std::vector<Event> events = NotFoundThrice();
  Event setup_write = {0, 0, event::Failpoint::kType, "", 0, 0, {{"point", "write:state.json"}}};
  events.insert(events.begin() + 1, setup_write);
  EXPECT_TRUE(StartFailureOf(events));
  Event job_write = At(event::Failpoint::kType, 1, {{"point", "write:state.json"}});
  events.insert(events.begin() + 3, job_write);
  EXPECT_FALSE(StartFailureOf(events));
}

TEST(StartFailureOf, ACrashPointOrADownstreamCallMeansTheJobRan) {
  for (Event got_going :
       {At(event::Failpoint::kType, 2, {{"point", "after_publish"}, {"hit", 1}}),
        At(event::PointsPassed::kType, 2, {{"points", {{"write:state.json", 1}}}}),
        At(event::Publish::kType, 2, {{"key", "k"}}), At(event::Query::kType, 1),
        At(event::OutsideWrites::kType, 1), At(event::JobWait::kType, 1)}) {
    std::vector<Event> events = NotFoundThrice();
    events.insert(events.begin() + 4, got_going);
    EXPECT_FALSE(StartFailureOf(events)) << got_going;
  }
}

TEST(StartFailureOf, DifferentCodesASuccessOrAHarnessKillAreVerdicts) {
  std::vector<Event> differ = NotFoundThrice();
  differ[4] = Exit(2, 1);
  EXPECT_FALSE(StartFailureOf(differ));
  std::vector<Event> succeeded = NotFoundThrice();
  succeeded.back() = Exit(3, 0);
  EXPECT_FALSE(StartFailureOf(succeeded));
  std::vector<Event> timed_out = NotFoundThrice();
  for (Event& e : timed_out) {
    if (e.type == event::Exit::kType)
      e.data = {{"code", 137}, {"signal", 9}, {"killed_by_harness", true}};
  }
  EXPECT_FALSE(StartFailureOf(timed_out));
  std::vector<Event> signalled = NotFoundThrice();  // SIGXFSZ: it wrote, with no point named
  for (Event& e : signalled) {
    if (e.type == event::Exit::kType) e.data = {{"code", 153}, {"signal", 25}};
  }
  EXPECT_FALSE(StartFailureOf(signalled));
  EXPECT_FALSE(StartFailureOf({At(event::TrialStart::kType, 0)}));  // no attempt at all
}

}  // namespace
}  // namespace killpoint
