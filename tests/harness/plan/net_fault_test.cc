// Network faults in plans (docs/services.md, "Faults between the job and its services"): their
// JSON, Summary and None, plans written before them, and how the planner, exhaustive mode and
// explore's generator draw them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "explore/schedule_gen.h"
#include "plan/exhaustive.h"
#include "plan/planner.h"

namespace killpoint {
namespace {

Scenario NetScenario(double probability) {
  Scenario s;
  s.name = "services/ambiguous";
  s.dates = {"2026-11-01", "2026-11-02"};
  s.retry.max_attempts = 3;
  s.services = {{"db", {"postgres"}}};
  s.faults.net = {{"net:db:commit", "net:db:connect"},
                  {NetAction::kDropAnswer, NetAction::kRefuse},
                  probability,
                  2,
                  250};
  return s;
}

TEST(NetFaultPlan, RoundTripsThroughJsonAndSaysItselfInTheSummary) {
  AttemptFault f;
  f.net = {"net:db:commit", NetAction::kDropAnswer, 2, 0};
  EXPECT_FALSE(f.None());
  Plan p{"services/ambiguous", 7, 0, {{"2026-11-01", 1, {f}}}};
  nlohmann::json j = p;
  EXPECT_EQ(j["runs"][0]["attempts"][0]["net"],
            (nlohmann::json{{"point", "net:db:commit"}, {"action", "drop_answer"}, {"hit", 2}}));
  EXPECT_EQ(nlohmann::json::parse(j.dump()).get<Plan>(), p);
  EXPECT_EQ(p.Summary(), "2026-11-01#1 a1 drop_answer@net:db:commit#2");
  f.net = {"net:db:connect", NetAction::kRefuse, 1, 300};
  EXPECT_EQ((nlohmann::json(f)["net"]["ms"]), 300);
  EXPECT_EQ(nlohmann::json(f).get<AttemptFault>(), f);
  // An action no proxy knows is a plan file's mistake, named, not a fault the proxy ignores.
  nlohmann::json unknown = f;
  unknown["net"]["action"] = "drop";
  EXPECT_THAT([&] { (void)unknown.get<AttemptFault>(); },
              ::testing::ThrowsMessage<nlohmann::json::type_error>(::testing::HasSubstr(
                  "a network fault's action must be one of: drop_answer, reset, delay, stall, "
                  "refuse")));
  // A plan written before network faults: none.
  EXPECT_TRUE(
      nlohmann::json::parse(R"({"kill_point": "x"})").get<AttemptFault>().net.point.empty());
}

TEST(NetFaultPlan, ThePlannerDrawsAFittingActionAndHitOnlyWhenTheScenarioAsks) {
  int drawn = 0;
  for (int trial = 0; trial < 50; ++trial) {
    Plan p = MakePlan(NetScenario(0.5), 1, trial);
    EXPECT_EQ(p, MakePlan(NetScenario(0.5), 1, trial));  // deterministic
    for (const PlannedRun& run : p.runs) {
      for (const AttemptFault& f : run.attempts) {
        if (f.net.point.empty()) continue;
        ++drawn;
        EXPECT_EQ(f.net.action,
                  f.net.point == "net:db:commit" ? NetAction::kDropAnswer : NetAction::kRefuse);
        EXPECT_GE(f.net.hit, 1);
        EXPECT_LE(f.net.hit, 2);
        EXPECT_EQ(f.net.ms, f.net.action == NetAction::kRefuse ? 250 : 0);
      }
    }
    for (const PlannedRun& run : MakePlan(NetScenario(0.0), 1, trial).runs) {
      for (const AttemptFault& f : run.attempts) EXPECT_TRUE(f.net.point.empty());
    }
  }
  EXPECT_GT(drawn, 20);
}

TEST(NetFaultPlan, ExhaustiveTriesEachPointWithEachFittingAction) {
  std::vector<AttemptFault> space = ExhaustiveSpace(NetScenario(0.5), {});
  ASSERT_EQ(space.size(), 2u);
  EXPECT_EQ(space[0].net, (NetFault{"net:db:commit", NetAction::kDropAnswer, 1, 0}));
  EXPECT_EQ(space[1].net, (NetFault{"net:db:connect", NetAction::kRefuse, 1, 250}));
}

RC_GTEST_PROP(NetFaultPlan, ExploreDrawsOnlyFittingNetFaults, ()) {
  const Scenario s = NetScenario(0.5);
  Plan p = *GenSchedule(s, 1, false);
  for (const PlannedRun& run : p.runs) {
    for (const AttemptFault& f : run.attempts) {
      if (f.net.point.empty()) continue;
      RC_ASSERT(f.net.action ==
                (f.net.point == "net:db:commit" ? NetAction::kDropAnswer : NetAction::kRefuse));
      RC_ASSERT(f.net.hit >= 1 && f.net.hit <= 2);
    }
  }
}

}  // namespace
}  // namespace killpoint
