// Pauses, overlaps and downstream bursts in plans (docs/faults.md): their JSON, equality and
// Summary, plans written before them, and how the planner and exhaustive mode draw them.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "plan/exhaustive.h"
#include "plan/planner.h"

namespace killpoint {
namespace {

Scenario LockScenario() {
  Scenario s;
  s.name = "locks/lease";
  s.dates = {"2026-11-01", "2026-11-02", "2026-11-03"};
  s.failpoints = {"after_lock", "before_commit"};
  s.retry.max_attempts = 3;
  s.duplicate_trigger_probability = 0.3;
  return s;
}

Scenario WithFaults(Scenario s, double pause, double overlap, double burst) {
  s.faults.pause = {{"after_lock", "before_commit"}, 400, pause};
  s.faults.overlap = {{"after_lock"}, overlap, 3000};
  s.faults.downstream_burst = {3, burst};
  return s;
}

// The plan without its pauses, overlaps and bursts, and without the attempts they alone added.
Plan WithoutProcessFaults(Plan p) {
  for (PlannedRun& run : p.runs) {
    for (AttemptFault& f : run.attempts) {
      f.pause = {};
      f.overlap = {};
      f.downstream_burst = 0;
    }
    while (!run.attempts.empty() && run.attempts.back().None()) run.attempts.pop_back();
  }
  return p;
}

TEST(ProcessFaultPlan, RoundTripsThroughJsonAndSaysItselfInTheSummary) {
  AttemptFault f;
  f.pause = {"after_lock", 400};
  f.overlap = {"after_lock", 3000};
  f.downstream_burst = 3;
  Plan p{"locks/lease", 7, 2, {{"2026-11-01", 1, {f}}}};
  nlohmann::json j = p;
  EXPECT_EQ(j["runs"][0]["attempts"][0]["pause"],
            (nlohmann::json{{"point", "after_lock"}, {"duration_ms", 400}}));
  EXPECT_EQ(j["runs"][0]["attempts"][0]["overlap"],
            (nlohmann::json{{"point", "after_lock"}, {"hold_ms", 3000}}));
  EXPECT_EQ(j["runs"][0]["attempts"][0]["downstream_burst"], 3);
  EXPECT_EQ(nlohmann::json::parse(j.dump()).get<Plan>(), p);
  EXPECT_EQ(p.Summary(), "2026-11-01#1 a1 pause@after_lock 400ms overlap@after_lock burst:3");
  EXPECT_FALSE(f.None());
}

// docs/faults.md, "Three instances": the second's hold point is part of the overlap, written
// only when set (plans without it keep their JSON, hence their fingerprints).
TEST(ProcessFaultPlan, TheSecondsHoldPointRoundTripsAndSaysItselfInTheSummary) {
  AttemptFault f;
  f.pause = {"after_check", 200};
  f.overlap = {"after_check", 10000, "before_pay"};
  Plan p{"services/redis-lock-plain-del", 7, 0, {{"2026-11-01", 1, {f}}}};
  nlohmann::json j = p;
  EXPECT_EQ(j["runs"][0]["attempts"][0]["overlap"],
            (nlohmann::json{
                {"point", "after_check"}, {"hold_ms", 10000}, {"second_holds_at", "before_pay"}}));
  EXPECT_EQ(nlohmann::json::parse(j.dump()).get<Plan>(), p);
  EXPECT_EQ(p.Summary(),
            "2026-11-01#1 a1 pause@after_check 200ms overlap@after_check/i2@before_pay");
  AttemptFault plain = f;
  plain.overlap.second_holds_at.clear();
  EXPECT_NE(plain, f);
  EXPECT_FALSE(nlohmann::json(plain)["overlap"].contains("second_holds_at"));
}

TEST(ProcessFaultPlan, EachPartCountsForEqualityAndNone) {
  AttemptFault a, b;
  a.pause = {"after_lock", 400};
  b.pause = {"after_lock", 401};
  EXPECT_NE(a, b);
  b = a;
  b.overlap = {"after_lock", 1};
  EXPECT_NE(a, b);
  AttemptFault burst;
  burst.downstream_burst = 1;
  EXPECT_FALSE(burst.None());
  AttemptFault overlap;
  overlap.overlap.point = "x";
  EXPECT_FALSE(overlap.None());
  EXPECT_TRUE(AttemptFault{}.None());
}

TEST(ProcessFaultPlan, PlansWrittenBeforeThemStillLoad) {
  auto old = nlohmann::json::parse(R"({"scenario": "s", "seed": 1, "trial": 0, "runs": [
      {"biz_date": "2026-11-01", "trigger": 1,
       "attempts": [{"kill_point": "after_lock", "occurrence": 1, "model": "process"}, {}]}]})");
  Plan p = old.get<Plan>();
  const AttemptFault& f = p.runs[0].attempts[0];
  EXPECT_EQ(f.kill_point, "after_lock");
  EXPECT_TRUE(f.pause.point.empty());
  EXPECT_TRUE(f.overlap.point.empty());
  EXPECT_EQ(f.downstream_burst, 0);
  EXPECT_EQ(nlohmann::json(p), old);  // and write back unchanged
}

TEST(ProcessFaultPlanner, AScenarioWithoutThemDrawsNone) {
  Scenario s = LockScenario();
  for (int trial = 0; trial < 200; ++trial) {
    Plan p = MakePlan(s, 5, trial);
    EXPECT_EQ(WithoutProcessFaults(p), p);
  }
}

RC_GTEST_PROP(ProcessFaultPlanner, LeaveTheKillsDatesAndTriggersAsTheyWere, ()) {
  Scenario base = LockScenario();
  Scenario s = WithFaults(base, *rc::gen::element(0.0, 0.5, 1.0), *rc::gen::element(0.0, 0.5, 1.0),
                          *rc::gen::element(0.0, 0.5, 1.0));
  uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  int trial = *rc::gen::inRange(0, 100000);
  RC_ASSERT(WithoutProcessFaults(MakePlan(s, seed, trial)) == MakePlan(base, seed, trial));
}

RC_GTEST_PROP(ProcessFaultPlanner, DrawOnlyTheScenariosPointsAndValues, ()) {
  Scenario s = WithFaults(LockScenario(), 0.5, 0.5, 0.5);
  Plan p = MakePlan(s, *rc::gen::arbitrary<uint64_t>(), *rc::gen::inRange(0, 100000));
  int bursts = 0;
  for (const PlannedRun& run : p.runs) {
    RC_ASSERT(static_cast<int>(run.attempts.size()) <= s.retry.max_attempts);
    for (size_t a = 0; a < run.attempts.size(); ++a) {
      const AttemptFault& f = run.attempts[a];
      if (!f.pause.point.empty()) {
        RC_ASSERT(f.pause.point == "after_lock" || f.pause.point == "before_commit");
        RC_ASSERT(f.pause.duration_ms == 400);
      }
      if (!f.overlap.point.empty()) {
        RC_ASSERT(f.overlap.point == "after_lock");
        RC_ASSERT(f.overlap.hold_ms == 3000);
      }
      if (f.downstream_burst != 0) {
        RC_ASSERT(f.downstream_burst == 3);
        RC_ASSERT(a == 0u);
        ++bursts;
      }
    }
  }
  RC_ASSERT(bursts <= 1);
}

TEST(ProcessFaultPlanner, ProbabilityOnePausesAndOverlapsEveryAttempt) {
  Scenario s = WithFaults(LockScenario(), 1.0, 1.0, 1.0);
  Plan p = MakePlan(s, 3, 4);
  int bursts = 0;
  for (const PlannedRun& run : p.runs) {
    ASSERT_EQ(static_cast<int>(run.attempts.size()), s.retry.max_attempts);
    for (const AttemptFault& f : run.attempts) {
      EXPECT_FALSE(f.pause.point.empty());
      EXPECT_EQ(f.overlap.point, "after_lock");
      bursts += f.downstream_burst > 0;
    }
  }
  EXPECT_EQ(bursts, 1);
  EXPECT_EQ(MakePlan(s, 3, 4), p);  // deterministic
}

TEST(ProcessFaultPlanner, ProbabilitiesSayHowOftenPerAttempt) {
  Scenario s = WithFaults(LockScenario(), 0.5, 0.2, 0.0);
  int attempts = 0, pauses = 0, overlaps = 0;
  for (int trial = 0; trial < 400; ++trial) {
    for (const PlannedRun& run : MakePlan(s, 11, trial).runs) {
      attempts += s.retry.max_attempts;
      for (const AttemptFault& f : run.attempts) {
        pauses += !f.pause.point.empty();
        overlaps += !f.overlap.point.empty();
      }
    }
  }
  // Binomial with hundreds of draws: far inside these bounds (the draws are seeded, fixed).
  EXPECT_NEAR(static_cast<double>(pauses) / attempts, 0.5, 0.1);
  EXPECT_NEAR(static_cast<double>(overlaps) / attempts, 0.2, 0.1);
}

// The planner, exhaustive mode and explore's generator copy second_holds_at into every overlap.
TEST(ProcessFaultPlanner, EveryOverlapCarriesTheSecondsHoldPoint) {
  Scenario s = WithFaults(LockScenario(), 0.0, 1.0, 0.0);
  s.faults.overlap.second_holds_at = "before_commit";
  int overlaps = 0;
  for (int trial = 0; trial < 20; ++trial) {
    for (const PlannedRun& run : MakePlan(s, 5, trial).runs) {
      for (const AttemptFault& f : run.attempts) {
        if (f.overlap.point.empty()) continue;
        ++overlaps;
        EXPECT_EQ(f.overlap, (OverlapFault{"after_lock", 3000, "before_commit"}));
      }
    }
  }
  EXPECT_GT(overlaps, 0);
  std::vector<AttemptFault> faults = EnumerateProcessFaults(s);
  ASSERT_EQ(faults.size(), 4u);
  EXPECT_EQ(faults[2].overlap, (OverlapFault{"after_lock", 3000, "before_commit"}));
}

TEST(ProcessFaultExhaustive, OneTrialPerPausePointPerOverlapPointAndTheBurst) {
  std::vector<AttemptFault> faults =
      EnumerateProcessFaults(WithFaults(LockScenario(), 0.1, 0.1, 0.1));
  ASSERT_EQ(faults.size(), 4u);
  EXPECT_EQ(faults[0].pause, (PauseFault{"after_lock", 400}));
  EXPECT_EQ(faults[1].pause, (PauseFault{"before_commit", 400}));
  EXPECT_EQ(faults[2].overlap, (OverlapFault{"after_lock", 3000}));
  EXPECT_EQ(faults[3].downstream_burst, 3);
  for (const AttemptFault& f : faults) EXPECT_TRUE(f.kill_point.empty());
  EXPECT_TRUE(EnumerateProcessFaults(LockScenario()).empty());
}

// hold_points (docs/faults.md): overlapped or paused there, never killed there, by the
// sampling planner and by the exhaustive space alike.
Scenario HeldAtTheLock() {
  Scenario s = LockScenario();
  s.failpoints = {"before_commit"};
  s.hold_points = {"after_lock"};
  s.faults.overlap = {{"after_lock"}, 0.5, 3000};
  return s;
}

TEST(HoldPoints, ThePlannerOverlapsThereAndNeverKillsThere) {
  Scenario s = HeldAtTheLock();
  int overlaps = 0, kills = 0;
  for (int trial = 0; trial < 300; ++trial) {
    for (const PlannedRun& run : MakePlan(s, 5, trial).runs) {
      for (const AttemptFault& f : run.attempts) {
        EXPECT_NE(f.kill_point, "after_lock") << trial;
        overlaps += f.overlap.point == "after_lock";
        kills += f.kill_point == "before_commit";
      }
    }
  }
  EXPECT_GT(overlaps, 0);
  EXPECT_GT(kills, 0);
}

TEST(HoldPoints, TheExhaustiveSpaceKillsEverywhereButThere) {
  Scenario s = HeldAtTheLock();
  s.syscall_points = true;  // else open:lock.db is left out: no kill could fire there
  std::vector<CrashPoint> discovered = {
      {"open:lock.db", 1}, {"after_lock", 1}, {"after_lock", 2}, {"before_commit", 1}};
  std::vector<AttemptFault> space = ExhaustiveSpace(s, discovered);
  std::vector<std::string> killed, overlapped;
  for (const AttemptFault& f : space) {
    if (!f.kill_point.empty()) killed.push_back(f.kill_point + "/" + std::string(NameOf(f.when)));
    if (!f.overlap.point.empty()) overlapped.push_back(f.overlap.point);
  }
  EXPECT_EQ(killed, (std::vector<std::string>{"open:lock.db/before", "open:lock.db/after",
                                              "before_commit/before"}));
  EXPECT_EQ(overlapped, std::vector<std::string>{"after_lock"});
  s.hold_points.clear();
  EXPECT_EQ(ExhaustiveSpace(s, discovered).size(), space.size() + 2);  // after_lock #1 and #2
}

}  // namespace
}  // namespace killpoint
