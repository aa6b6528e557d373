#include "plan/planner.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <set>
#include <utility>

#include "plan/point_pattern.h"

namespace killpoint {
namespace {

// A scenario with the shape the planner reads, drawn by RapidCheck.
rc::Gen<Scenario> GenScenario() {
  return rc::gen::exec([] {
    Scenario s;
    // Names come from parsed JSON, so they are valid UTF-8.
    s.name = *rc::gen::nonEmpty(rc::gen::container<std::string>(rc::gen::inRange('!', '~')));
    int dates = *rc::gen::inRange(1, 6);
    for (int d = 1; d <= dates; ++d) s.dates.push_back("2026-11-0" + std::to_string(d));
    int points = *rc::gen::inRange(0, 8);
    for (int p = 0; p < points; ++p) s.failpoints.push_back("point_" + std::to_string(p));
    s.max_occurrence = *rc::gen::inRange(1, 4);
    s.retry.max_attempts = *rc::gen::inRange(1, 6);
    s.duplicate_trigger_probability = *rc::gen::element(0.0, 0.3, 1.0);
    s.downstream.faults = {kCommitNoAnswer, kFailBeforeCommit};
    s.downstream.fault_probability = *rc::gen::element(0.0, 0.5, 1.0);
    return s;
  });
}

RC_GTEST_PROP(Planner, IsDeterministic, ()) {
  Scenario s = *GenScenario();
  uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  int trial = *rc::gen::inRange(0, 1'000'000);
  RC_ASSERT(MakePlan(s, seed, trial) == MakePlan(s, seed, trial));
}

RC_GTEST_PROP(Planner, UsesOnlyTheScenariosDatesPointsAndAttempts, ()) {
  Scenario s = *GenScenario();
  Plan p = MakePlan(s, *rc::gen::arbitrary<uint64_t>(), *rc::gen::inRange(0, 100000));
  RC_ASSERT(!p.runs.empty());
  RC_ASSERT(p.runs.front().biz_date == s.dates.front());
  std::set<std::string> points(s.failpoints.begin(), s.failpoints.end());
  for (const PlannedRun& run : p.runs) {
    RC_ASSERT(std::find(s.dates.begin(), s.dates.end(), run.biz_date) != s.dates.end());
    RC_ASSERT(run.trigger == 1 || run.trigger == 2);
    RC_ASSERT(static_cast<int>(run.attempts.size()) <= s.retry.max_attempts);
    for (const AttemptFault& f : run.attempts) {
      if (!f.kill_point.empty()) RC_ASSERT(points.count(f.kill_point) == 1u);
      RC_ASSERT(f.occurrence >= 1 && f.occurrence <= s.max_occurrence);
    }
  }
}

RC_GTEST_PROP(Planner, RoundTripsThroughJson, ()) {
  Plan p = MakePlan(*GenScenario(), *rc::gen::arbitrary<uint64_t>(), *rc::gen::inRange(0, 100000));
  nlohmann::json j = p;
  RC_ASSERT(nlohmann::json::parse(j.dump()).get<Plan>() == p);
}

RC_GTEST_PROP(Planner, GivesAllKillsOfATrialOneModel, ()) {
  Scenario s = *GenScenario();
  s.models = {PersistenceModel::kProcess, PersistenceModel::kPower, PersistenceModel::kTorn};
  Plan p = MakePlan(s, *rc::gen::arbitrary<uint64_t>(), *rc::gen::inRange(0, 100000));
  RC_ASSERT(p.Models().size() == 1u);
}

// Every n consecutive trials kill the first attempt at each of the n points once.
RC_GTEST_PROP(Planner, RotatesThePrimaryKillThroughEveryPoint, ()) {
  Scenario s = *GenScenario();
  RC_PRE(!s.failpoints.empty());
  uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  int start = *rc::gen::inRange(0, 10000);
  std::set<std::string> seen;
  for (int t = start; t < start + static_cast<int>(s.failpoints.size()); ++t) {
    seen.insert(MakePlan(s, seed, t).runs.front().attempts.front().kill_point);
  }
  RC_ASSERT(seen.size() == s.failpoints.size());
}

TEST(Planner, DiffersAcrossSeedsAndTrials) {
  Scenario s;
  s.name = "x";
  s.dates = {"2026-11-01", "2026-11-02", "2026-11-03"};
  s.failpoints = {"a", "b", "c"};
  s.max_occurrence = 2;
  std::set<std::string> summaries;
  for (int t = 0; t < 50; ++t) summaries.insert(MakePlan(s, 7, t).Summary());
  EXPECT_GT(summaries.size(), 10u);
  EXPECT_NE(MakePlan(s, 7, 3), MakePlan(s, 8, 3));
}

// Pins the plan of one trial: a change here changes every seed's meaning, and the replay
// commands users saved. Change it only on purpose.
TEST(Planner, IsStableAcrossVersions) {
  Scenario s;
  s.name = "settle/upsert";
  s.dates = {"2026-11-01", "2026-11-02", "2026-11-03"};
  s.failpoints = {"before_write", "before_commit", "after_commit"};
  s.duplicate_trigger_probability = 0.2;
  EXPECT_EQ(MakePlan(s, 1, 0).Summary(), MakePlan(s, 1, 0).Summary());
  EXPECT_EQ(MakePlan(s, 1, 0).Summary(),
            "2026-11-01#1 a1 kill@before_commit#1; 2026-11-02#1 a2 kill@before_write#1");
}

// Patterns (plan/point_pattern.h) draw among the discovered hits they match.
std::vector<CrashPoint> Discovered() {
  return {{"open:<tmp1>", 1},
          {"write:<tmp1>", 1},
          {"write:<tmp1>", 2},
          {"fsync:<tmp1>", 1},
          {"rename:<tmp1>:state.json", 1},
          {"fsync:.", 1},
          {"before_publish", 1},
          {"fsync:.", 2}};
}

// Names draw the same plans with or without discovery, but for the occurrence of a
// discovered name: never beyond the hits the discovery saw (a kill there would never fire).
RC_GTEST_PROP(Planner, NamesOnlyScenariosDrawNoOccurrenceBeyondTheDiscoveredHits, ()) {
  Scenario s = *GenScenario();
  s.failpoints.push_back("before_publish");  // discovered once
  uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  int trial = *rc::gen::inRange(0, 1'000'000);
  Plan plain = MakePlan(s, seed, trial);
  Plan capped = MakePlan(s, seed, trial, Discovered());
  RC_ASSERT(plain.runs.size() == capped.runs.size());
  for (size_t r = 0; r < plain.runs.size(); ++r) {
    RC_ASSERT(plain.runs[r].attempts.size() == capped.runs[r].attempts.size());
    for (size_t a = 0; a < plain.runs[r].attempts.size(); ++a) {
      AttemptFault want = plain.runs[r].attempts[a];
      const AttemptFault& got = capped.runs[r].attempts[a];
      if (want.kill_point == "before_publish") {
        RC_ASSERT(got.occurrence == 1);
        want.occurrence = 1;
      }
      RC_ASSERT(got == want);
    }
  }
}

TEST(Planner, ANameIsNeverPlannedAtAHitTheDiscoveryDidNotSee) {
  Scenario s;
  s.name = "publish/intent-done";
  s.dates = {"2026-11-01", "2026-11-02"};
  s.failpoints = {"before_publish", "write:<tmp1>", "after_publish"};
  s.max_occurrence = 2;
  std::set<std::pair<std::string, int>> drawn;
  for (int trial = 0; trial < 200; ++trial) {
    for (const PlannedRun& run : MakePlan(s, 3, trial, Discovered()).runs) {
      for (const AttemptFault& f : run.attempts) {
        if (!f.kill_point.empty()) drawn.insert({f.kill_point, f.occurrence});
      }
    }
  }
  // before_publish was passed once, write:<tmp1> twice, after_publish not at all (kept at 1..2).
  EXPECT_EQ(drawn, (std::set<std::pair<std::string, int>>{{"before_publish", 1},
                                                          {"write:<tmp1>", 1},
                                                          {"write:<tmp1>", 2},
                                                          {"after_publish", 1},
                                                          {"after_publish", 2}}));
}

TEST(Planner, APatternDrawsEveryDiscoveredHitItMatchesAndOnlyThose) {
  Scenario s;
  s.name = "py/mkstemp";
  s.dates = {"2026-11-01"};
  s.failpoints = {"*:*"};
  s.hold_points = {"fsync:<tmp1>"};
  s.max_occurrence = 1;
  std::set<std::pair<std::string, int>> drawn;
  for (int trial = 0; trial < 400; ++trial) {
    Plan p = MakePlan(s, 7, trial, Discovered());
    EXPECT_EQ(p, MakePlan(s, 7, trial, Discovered()));
    const AttemptFault& primary = p.runs.front().attempts.front();
    drawn.insert({primary.kill_point, primary.occurrence});
    // A later attempt may pass other points: it keeps the pattern, at a matching hit's rank.
    for (const PlannedRun& run : p.runs) {
      for (const AttemptFault& f : run.attempts) {
        if (&f == &primary || f.kill_point.empty()) continue;
        EXPECT_EQ(f.kill_point, "*:*");
        EXPECT_GE(f.occurrence, 1);
        EXPECT_LE(f.occurrence, 6);
      }
    }
  }
  // Every syscall hit but the held one, at its own occurrence: the second write and the
  // second fsync:. too, which max_occurrence 1 would never reach.
  EXPECT_EQ(drawn, (std::set<std::pair<std::string, int>>{{"open:<tmp1>", 1},
                                                          {"write:<tmp1>", 1},
                                                          {"write:<tmp1>", 2},
                                                          {"rename:<tmp1>:state.json", 1},
                                                          {"fsync:.", 1},
                                                          {"fsync:.", 2}}));
}

TEST(Planner, APatternWithoutAMatchIsPlannedAsThePattern) {
  Scenario s;
  s.name = "py/mkstemp";
  s.dates = {"2026-11-01"};
  s.failpoints = {"rename:*:state.json", "before_*"};
  s.max_occurrence = 3;
  std::set<std::string> points;
  for (int trial = 0; trial < 20; ++trial) {
    Plan plain = MakePlan(s, 1, trial, {});
    for (const AttemptFault& f : plain.runs.front().attempts) {
      points.insert(f.kill_point);
      EXPECT_LE(f.occurrence, 3);
    }
    // With discovery, both resolve to a discovered point.
    Plan resolved = MakePlan(s, 1, trial, Discovered());
    EXPECT_FALSE(IsPointPattern(resolved.runs.front().attempts.front().kill_point));
  }
  EXPECT_EQ(points, (std::set<std::string>{"rename:*:state.json", "before_*"}));
}

}  // namespace
}  // namespace killpoint
