// Which planned faults happened, from the plan and the history alone (history/exercise.h), and
// the counterexample's history rewritten for the plan without the kills that never fired
// (counterexample/fired_only.h).
#include "history/exercise.h"

#include <gtest/gtest.h>

#include "counterexample/fired_only.h"
#include "history/event_registry.h"

namespace killpoint {
namespace {

using enum PersistenceModel;

Event At(const char* type, const std::string& date, int attempt,
         nlohmann::json data = nlohmann::json::object()) {
  return {0, 0, type, date, 1, attempt, std::move(data)};
}

AttemptFault Kill(const std::string& point, PersistenceModel model = kProcess) {
  AttemptFault f;
  f.kill_point = point;
  f.model = model;
  return f;
}

// Two dates: 11-01 planned kills in attempts 1 and 2, 11-02 one in attempt 1.
Plan TwoDates() {
  return {"s",
          1,
          0,
          {{"2026-11-01", 1, {Kill("write:state.json", kPower), Kill("after_publish")}},
           {"2026-11-02", 1, {Kill("open:tmpk3x9q1ab", kTorn)}}}};
}

TEST(ExerciseOf, AKillFiredOnlyWhenItsAttemptHasAKillEvent) {
  std::vector<Event> events = {
      At(event::Spawn::kType, "2026-11-01", 1),
      At(event::Kill::kType, "2026-11-01", 1, {{"point", "write:state.json"}}),
      At(event::Spawn::kType, "2026-11-01", 2),
      At(event::Exit::kType, "2026-11-01", 2),  // ran past after_publish
      At(event::Spawn::kType, "2026-11-02", 1),
      // a kill of another date's attempt 1 is not this one's
      At(event::Exit::kType, "2026-11-02", 1)};
  TrialExercise e = ExerciseOf(TwoDates(), events);
  ASSERT_EQ(e.kills.size(), 3u);
  EXPECT_TRUE(e.kills[0].fired);
  EXPECT_FALSE(e.kills[1].fired);
  EXPECT_FALSE(e.kills[2].fired);
  EXPECT_EQ(e.kills[2].point, "open:tmpk3x9q1ab");
  EXPECT_EQ(e.Fired(), 1);
  EXPECT_FALSE(e.AllFired());
  // Only the fired kill's model was applied.
  EXPECT_EQ(e.Models(), std::vector<PersistenceModel>{kPower});
}

TEST(ExerciseOf, AnyPointNameFiresAPlannedPattern) {
  Plan p{"s", 1, 0, {{"2026-11-01", 1, {Kill("write:state*.json*")}}}};
  TrialExercise e =
      ExerciseOf(p, {At(event::Kill::kType, "2026-11-01", 1, {{"point", "write:state.json.tmp"}})});
  ASSERT_EQ(e.kills.size(), 1u);
  EXPECT_TRUE(e.kills[0].fired);
  EXPECT_TRUE(e.AllFired());
}

TEST(ExerciseOf, NoKillFiredMeansNoModelWasApplied) {
  TrialExercise e = ExerciseOf(TwoDates(), {});
  EXPECT_EQ(e.Fired(), 0);
  EXPECT_EQ(e.Models(), std::vector<PersistenceModel>{kProcess});
  EXPECT_EQ(ExerciseOf(Plan{"s", 1, 0, {{"2026-11-01", 1, {}}}}, {}).kills.size(), 0u);
}

TEST(ExerciseOf, CountsPausesOverlapsAndDownstreamFaultsThatNeverHappened) {
  AttemptFault f;
  f.pause = {"before_publish", 100};
  f.downstream_fault = "commit_no_answer";
  Plan p{"s", 1, 0, {{"2026-11-01", 1, {f}}}};
  TrialExercise e = ExerciseOf(p, {At(event::Pause::kType, "2026-11-01", 1)});
  EXPECT_EQ(e.other_faults, 2);
  EXPECT_EQ(e.other_fired, 1);
  e = ExerciseOf(p, {At(event::Publish::kType, "2026-11-01", 1, {{"fault", "commit_no_answer"}})});
  EXPECT_EQ(e.other_fired, 1);
}

// docs/faults.md, "Three instances": the overlap started its second, which exited before its
// hold point, so no third ran: not exercised.
TEST(ExerciseOf, AnOverlapWithASecondHoldPointHappenedOnlyIfTheSecondWasHeld) {
  AttemptFault f;
  f.overlap = {"after_check", 3000, "before_pay"};
  Plan p{"s", 1, 0, {{"2026-11-01", 1, {f}}}};
  Event overlap = At(event::Overlap::kType, "2026-11-01", 1, {{"point", "after_check"}});
  TrialExercise e = ExerciseOf(p, {overlap});
  EXPECT_EQ(e.other_faults, 1);
  EXPECT_EQ(e.other_fired, 0);
  e = ExerciseOf(p, {overlap, At(event::SecondHeld::kType, "2026-11-01", 1,
                                 {{"point", "before_pay"}, {"instance", 2}})});
  EXPECT_EQ(e.other_fired, 1);
}

TEST(ExerciseOf, CollectsTheCallsTheSupervisorRefused) {
  TrialExercise e = ExerciseOf(
      TwoDates(), {At(event::Refused::kType, "2026-11-01", 1, {{"calls", {"io_uring_setup"}}}),
                   At(event::Refused::kType, "2026-11-01", 2, {{"calls", {"io_uring_setup"}}})});
  EXPECT_EQ(e.refused, std::vector<std::string>{"io_uring_setup"});
  EXPECT_EQ(nlohmann::json(e).get<TrialExercise>(), e);
}

TEST(ExerciseOf, RoundTripsThroughJson) {
  TrialExercise e = ExerciseOf(TwoDates(), {At(event::Kill::kType, "2026-11-01", 1)});
  EXPECT_EQ(nlohmann::json(e).get<TrialExercise>(), e);
}

TEST(FiredOnly, DropsTheKillsThatNeverFiredAndKeepsTheRest) {
  Plan p = TwoDates();
  p.runs[1].attempts[0].pause = {"before_publish", 5};
  TrialExercise e = ExerciseOf(p, {At(event::Kill::kType, "2026-11-01", 1)});
  Plan trimmed = FiredOnly(p, e);
  EXPECT_EQ(trimmed.runs[0].attempts[0], p.runs[0].attempts[0]);
  EXPECT_TRUE(trimmed.runs[0].attempts[1].None());
  EXPECT_TRUE(trimmed.runs[1].attempts[0].kill_point.empty());
  EXPECT_EQ(trimmed.runs[1].attempts[0].pause.point, "before_publish");
  EXPECT_EQ(
      trimmed.Summary(),
      "2026-11-01#1 a1 kill@write:state.json#1/power; 2026-11-02#1 a1 pause@before_publish 5ms");
}

TEST(HistoryOfFiredOnly, RewritesThePlanTheSpawnAndTheArmedSyscallPoints) {
  Plan p{"s", 1, 0, {{"2026-11-01", 1, {Kill("fsync:state.json", kPower)}}}};
  p.runs[0].attempts[0].occurrence = 3;  // the point came once: the kill never fired
  std::vector<Event> events = {
      At(event::TrialStart::kType, "", 0, {{"plan", p}}),
      At(event::Spawn::kType, "2026-11-01", 1, {{"fault", p.runs[0].attempts[0]}}),
      At(event::Failpoint::kType, "2026-11-01", 1, {{"point", "fsync:state.json"}, {"hit", 1}}),
      At(event::Failpoint::kType, "2026-11-01", 1,
         {{"point", "before_publish"}, {"hit", 1}}),  // a named point stays
      At(event::Failpoint::kType, "2026-11-01", 1, {{"point", "rename:a:b"}, {"hit", 1}}),
      At(event::PointsPassed::kType, "2026-11-01", 1,
         {{"points", {{"write:state.json", 2}, {"rename:a:b", 1}}}}),
      At(event::Exit::kType, "2026-11-01", 1, {{"code", 0}}),
      At(event::FinalPass::kType, "", 0)};
  for (size_t i = 0; i < events.size(); ++i) events[i].seq = static_cast<int64_t>(i);
  TrialExercise e = ExerciseOf(p, events);
  ASSERT_FALSE(e.AllFired());
  std::vector<Event> now = HistoryOfFiredOnly(p, e, events, true);
  ASSERT_EQ(now.size(), 6u);
  EXPECT_EQ(now[0].data["plan"].get<Plan>(), FiredOnly(p, e));
  EXPECT_EQ(now[1].data["fault"], nlohmann::json::object());
  EXPECT_EQ(now[2].type, event::Failpoint::kType);
  EXPECT_EQ(now[2].data["point"], "before_publish");
  EXPECT_EQ(now[3].type, event::PointsPassed::kType);
  EXPECT_EQ(now[3].data["points"],
            (nlohmann::json{{"fsync:state.json", 1}, {"rename:a:b", 2}, {"write:state.json", 2}}));
  EXPECT_EQ(now[4].type, event::Exit::kType);
  for (size_t i = 0; i < now.size(); ++i) EXPECT_EQ(now[i].seq, static_cast<int64_t>(i));
  // Without the shim every point is named and answered: only the plan and the spawn change.
  std::vector<Event> named = HistoryOfFiredOnly(p, e, events, false);
  ASSERT_EQ(named.size(), events.size());
  EXPECT_EQ(named[2], events[2]);
  EXPECT_EQ(named[1].data["fault"], nlohmann::json::object());
  // Counts only, no syscall point answered: they stay counts, before the exit.
  std::vector<Event> counts_only = {events[0], events[1], events[5], events[6]};
  std::vector<Event> recounted = HistoryOfFiredOnly(p, e, counts_only, true);
  ASSERT_EQ(recounted.size(), 4u);
  EXPECT_EQ(recounted[2].data["points"], events[5].data["points"]);
  EXPECT_EQ(recounted[3].type, event::Exit::kType);
  // Every kill fired: the history is the one recorded.
  TrialExercise all = e;
  all.kills[0].fired = true;
  EXPECT_EQ(HistoryOfFiredOnly(p, all, events, true), events);
}

// docs/faults.md, "Three instances": the second's hold point, a syscall point, is answered (a
// failpoint event) whether or not the first's kill fired; only the other points go one way.
TEST(HistoryOfFiredOnly, KeepsTheSecondsHoldPointAnswered) {
  AttemptFault f = Kill("fsync:state.json", kPower);
  f.occurrence = 3;  // never fired
  f.overlap = {"before_publish", 1000, "write:lock.db"};
  Plan p{"s", 1, 0, {{"2026-11-01", 1, {f}}}};
  std::vector<Event> events = {
      At(event::TrialStart::kType, "", 0, {{"plan", p}}),
      At(event::Spawn::kType, "2026-11-01", 1, {{"fault", f}}),
      At(event::Overlap::kType, "2026-11-01", 1, {{"point", "before_publish"}, {"hold_ms", 1000}}),
      At(event::Failpoint::kType, "2026-11-01", 1,
         {{"point", "write:lock.db"}, {"hit", 1}, {"instance", 2}}),
      At(event::Failpoint::kType, "2026-11-01", 1, {{"point", "fsync:state.json"}, {"hit", 1}}),
      At(event::Exit::kType, "2026-11-01", 1, {{"code", 0}})};
  for (size_t i = 0; i < events.size(); ++i) events[i].seq = static_cast<int64_t>(i);
  TrialExercise e = ExerciseOf(p, events);
  ASSERT_FALSE(e.AllFired());
  std::vector<Event> now = HistoryOfFiredOnly(p, e, events, true);
  ASSERT_EQ(now.size(), 6u);
  EXPECT_EQ(now[3].type, event::Failpoint::kType);
  EXPECT_EQ(now[3].data["point"], "write:lock.db");    // the second's, held there
  EXPECT_EQ(now[4].type, event::PointsPassed::kType);  // the first's fsync, one way now
  EXPECT_EQ(now[4].data["points"], (nlohmann::json{{"fsync:state.json", 1}}));
}

}  // namespace
}  // namespace killpoint

namespace killpoint {
namespace {

// The trial's writes outside the sandbox go with its exercise into the journal (issue 18):
// one per path over every attempt, ops merged; absent from the JSON when there are none.
TEST(ExerciseOf, CollectsTheWritesOutsideTheSandboxOfEveryAttempt) {
  Plan plan{"s", 1, 0, {{"2026-11-01", 1, {AttemptFault{}, AttemptFault{}}}}};
  std::vector<Event> events = {
      {0,
       0,
       event::OutsideWrites::kType,
       "2026-11-01",
       1,
       1,
       {{"writes", {{{"path", "/tmp/b"}, {"kind", "temp"}, {"ops", {"open"}}}}}}},
      {1,
       0,
       event::OutsideWrites::kType,
       "2026-11-01",
       1,
       2,
       {{"writes",
         {{{"path", "/tmp/a"}, {"kind", "temp"}, {"ops", {"mkdir"}}},
          {{"path", "/tmp/b"}, {"kind", "temp"}, {"ops", {"rename"}}}}}}}};
  TrialExercise e = ExerciseOf(plan, events);
  ASSERT_EQ(e.outside.size(), 2u);
  EXPECT_EQ(e.outside[0], (OutsideWrite{"/tmp/a", "temp", {"mkdir"}}));
  EXPECT_EQ(e.outside[1], (OutsideWrite{"/tmp/b", "temp", {"open", "rename"}}));
  EXPECT_EQ(nlohmann::json(e).get<TrialExercise>(), e);
  EXPECT_FALSE(nlohmann::json(ExerciseOf(plan, {})).contains("outside"));
}

}  // namespace
}  // namespace killpoint
