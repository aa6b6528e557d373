// Server faults in plans (docs/services.md, "Server faults"): their JSON, Summary and None, plans
// written before them, and how the planner, exhaustive mode and explore's generator draw them.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "explore/schedule_gen.h"
#include "plan/exhaustive.h"
#include "plan/planner.h"

namespace killpoint {
namespace {

Scenario ServerScenario(double probability) {
  Scenario s;
  s.name = "services/server-kill";
  s.dates = {"2026-11-01", "2026-11-02"};
  s.failpoints = {"after_commit"};
  s.hold_points = {"before_commit"};
  s.retry.max_attempts = 3;
  s.services = {{"db", {"postgres"}}, {"cache", {"redis"}}};
  s.faults.server = {{"before_commit", "after_commit"},
                     {"db", "cache"},
                     {ServerAction::kKill, ServerAction::kPause},
                     probability,
                     700};
  return s;
}

TEST(ServerFaultPlan, RoundTripsThroughJsonAndSaysItselfInTheSummary) {
  AttemptFault f;
  f.server = {"after_commit", "db", ServerAction::kKill, 0};
  EXPECT_FALSE(f.None());
  Plan p{"services/server-kill", 7, 0, {{"2026-11-01", 1, {f}}}};
  nlohmann::json j = p;
  EXPECT_EQ(j["runs"][0]["attempts"][0]["server"],
            (nlohmann::json{{"point", "after_commit"}, {"service", "db"}, {"action", "kill"}}));
  EXPECT_EQ(nlohmann::json::parse(j.dump()).get<Plan>(), p);
  EXPECT_EQ(p.Summary(), "2026-11-01#1 a1 kill@server:db@after_commit");
  f.server = {"before_commit", "cache", ServerAction::kPause, 1500};
  EXPECT_EQ((nlohmann::json(f)["server"]["duration_ms"]), 1500);
  EXPECT_EQ(nlohmann::json(f).get<AttemptFault>(), f);
  p.runs[0].attempts[0] = f;
  EXPECT_EQ(p.Summary(), "2026-11-01#1 a1 pause@server:cache@before_commit 1500ms");
  // A plan written before server faults: none.
  EXPECT_TRUE(
      nlohmann::json::parse(R"({"kill_point": "x"})").get<AttemptFault>().server.point.empty());
}

TEST(ServerFaultPlan, ThePlannerDrawsOnlyWhenTheScenarioAsksAndLeavesTheRestAsItWas) {
  int drawn = 0, kills = 0;
  Scenario without = ServerScenario(0.0);
  without.faults.server = {};
  for (int trial = 0; trial < 50; ++trial) {
    Plan p = MakePlan(ServerScenario(0.5), 1, trial);
    EXPECT_EQ(p, MakePlan(ServerScenario(0.5), 1, trial));  // deterministic
    // The process-fault stream: kills, dates and triggers as without the field.
    Plan plain = MakePlan(without, 1, trial);
    ASSERT_EQ(p.runs.size(), plain.runs.size());
    for (size_t r = 0; r < p.runs.size(); ++r) {
      EXPECT_EQ(p.runs[r].biz_date, plain.runs[r].biz_date);
      EXPECT_EQ(p.runs[r].FaultFor(1).kill_point, plain.runs[r].FaultFor(1).kill_point);
      for (const AttemptFault& f : p.runs[r].attempts) {
        if (f.server.point.empty()) continue;
        ++drawn;
        kills += f.server.action == ServerAction::kKill;
        EXPECT_EQ(f.server.duration_ms, f.server.action == ServerAction::kPause ? 700 : 0);
      }
    }
    EXPECT_EQ(MakePlan(ServerScenario(0.0), 1, trial), plain);
  }
  EXPECT_GT(drawn, 20);
  EXPECT_GT(kills, 5);
  EXPECT_LT(kills, drawn);
}

TEST(ServerFaultPlan, ExhaustiveTriesEachPointServiceAndAction) {
  Scenario s = ServerScenario(0.5);
  s.failpoints.clear();
  std::vector<AttemptFault> space = ExhaustiveSpace(s, {});
  ASSERT_EQ(space.size(), 8u);
  EXPECT_EQ(space[0].server, (ServerFault{"before_commit", "db", ServerAction::kKill, 0}));
  EXPECT_EQ(space[1].server, (ServerFault{"before_commit", "db", ServerAction::kPause, 700}));
  EXPECT_EQ(space[7].server, (ServerFault{"after_commit", "cache", ServerAction::kPause, 700}));
}

RC_GTEST_PROP(ServerFaultPlan, ExploreDrawsOnlyTheScenariosServerFaults, ()) {
  const Scenario s = ServerScenario(0.5);
  Plan p = *GenSchedule(s, 1, false);
  for (const PlannedRun& run : p.runs) {
    for (const AttemptFault& f : run.attempts) {
      if (f.server.point.empty()) continue;
      RC_ASSERT(f.server.service == "db" || f.server.service == "cache");
      RC_ASSERT(f.server.duration_ms == (f.server.action == ServerAction::kPause ? 700 : 0));
    }
  }
  Scenario off = s;
  off.faults.server.probability = 0;
  RC_ASSERT(!SwitchesOf(off, false).server);
  RC_ASSERT(SwitchesOf(off, true).server);
}

}  // namespace
}  // namespace killpoint
