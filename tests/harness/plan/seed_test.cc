// Seeds come from one function (plan/seed.h); the torn model's seed is drawn by the planner
// and stored in the plan, and a plan of before, without it, runs as it always did.
#include "plan/seed.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "plan/plan.h"
#include "plan/planner.h"
#include "plan/rng.h"

namespace killpoint {
namespace {

uint64_t U(int v) { return static_cast<uint64_t>(v); }

// The derivations as the planner, the retry schedule and the trial runner spelled them before
// DeriveSeed, verbatim: a --seed must keep meaning the same plans, delays and torn cuts.
uint64_t ModelSeedBefore(const std::string& s, uint64_t seed, int trial) {
  return HashName(s) ^ (seed * 0xA24BAED4963EE407ULL) ^ (U(trial) * 0x9FB21C651E98DF25ULL);
}
uint64_t FaultSeedBefore(const std::string& s, uint64_t seed, int trial) {
  return HashName(s) ^ (seed * 0xC2B2AE3D27D4EB4FULL) ^ (U(trial) * 0x165667B19E3779F9ULL) ^
         0x6661756C7473ULL;
}
std::pair<uint64_t, uint64_t> PlanSeedsBefore(const std::string& s, uint64_t seed, int trial) {
  PlanRng rng(HashName(s) ^ (seed * 0x9E3779B97F4A7C15ULL));
  uint64_t rotation = rng.Next();
  return {rotation, rng.Next() ^ (U(trial) * 0xD1B54A32D192ED03ULL)};
}
uint64_t RetrySeedBefore(const std::string& s, uint64_t seed, int trial, const std::string& date,
                         int trigger, int attempt) {
  uint64_t h = HashName(s) ^ (seed * 0xC2B2AE3D27D4EB4FULL);
  h ^= U(trial) * 0x165667B19E3779F9ULL;
  h ^= HashName(date) * 0x27D4EB2F165667C5ULL;
  h ^= (U(trigger) << 32 | U(attempt)) * 0x94D049BB133111EBULL;
  return h;
}

RC_GTEST_PROP(DeriveSeed, KeepsTheValuesOfTheDerivationsItReplaced, ()) {
  const std::string s = *rc::gen::arbitrary<std::string>();
  const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  const int trial = *rc::gen::inRange(0, 1000000);
  const std::string date = *rc::gen::arbitrary<std::string>();
  const int trigger = *rc::gen::inRange(1, 3);
  const int attempt = *rc::gen::inRange(1, 100);
  RC_ASSERT(DeriveSeed(seed, s, trial, SeedPurpose::kModel) == ModelSeedBefore(s, seed, trial));
  RC_ASSERT(DeriveSeed(seed, s, trial, SeedPurpose::kFaults) == FaultSeedBefore(s, seed, trial));
  auto [rotation, main] = PlanSeedsBefore(s, seed, trial);
  RC_ASSERT(PlanRng(DeriveSeed(seed, s, trial, SeedPurpose::kPlanShared)).Next() == rotation);
  RC_ASSERT(DeriveSeed(seed, s, trial, SeedPurpose::kPlan) == main);
  RC_ASSERT(DeriveSeed(seed, s, trial, SeedPurpose::kRetryJitter, {date, trigger, attempt}) ==
            RetrySeedBefore(s, seed, trial, date, trigger, attempt));
  RC_ASSERT(DeriveSeed(seed, s, trial, SeedPurpose::kModelSeedOfOldPlans,
                       {date, trigger, attempt}) == (seed ^ (U(trial) << 20) ^ U(attempt)));
}

// Which inputs each purpose depends on; the rest it must ignore.
struct Uses {
  bool trial;
  bool site;
  bool scenario;
};

Uses UsesOf(SeedPurpose p) {
  switch (p) {
    case SeedPurpose::kPlanShared:
      return {false, false, true};
    case SeedPurpose::kPlan:
    case SeedPurpose::kModel:
    case SeedPurpose::kFaults:
      return {true, false, true};
    case SeedPurpose::kRetryJitter:
    case SeedPurpose::kModelSeed:
      return {true, true, true};
    case SeedPurpose::kModelSeedOfOldPlans:
      return {true, false, false};  // but the attempt: below
  }
  return {};
}

const std::vector<SeedPurpose> kPurposes = {SeedPurpose::kPlanShared,
                                            SeedPurpose::kPlan,
                                            SeedPurpose::kModel,
                                            SeedPurpose::kFaults,
                                            SeedPurpose::kRetryJitter,
                                            SeedPurpose::kModelSeed,
                                            SeedPurpose::kModelSeedOfOldPlans};

// Changing any one input a purpose uses changes its seed.
RC_GTEST_PROP(DeriveSeed, EachInputAPurposeUsesChangesItsSeed, ()) {
  const SeedPurpose p = *rc::gen::elementOf(kPurposes);
  const Uses uses = UsesOf(p);
  const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  const std::string s = *rc::gen::arbitrary<std::string>();
  const int trial = *rc::gen::inRange(0, 1000000);
  const std::string date = *rc::gen::arbitrary<std::string>();
  const int trigger = *rc::gen::inRange(1, 3);
  const int attempt = *rc::gen::inRange(1, 100);
  const uint64_t d = DeriveSeed(seed, s, trial, p, {date, trigger, attempt});
  RC_ASSERT(DeriveSeed(seed, s, trial, p, {date, trigger, attempt}) == d);  // pure
  RC_ASSERT(DeriveSeed(seed + 1 + *rc::gen::inRange<uint64_t>(0, 1000), s, trial, p,
                       {date, trigger, attempt}) != d);
  const std::string other = *rc::gen::distinctFrom(s);
  const std::string other_date = *rc::gen::distinctFrom(date);
  const int other_trial = trial + *rc::gen::inRange(1, 1000);
  RC_ASSERT((DeriveSeed(seed, other, trial, p, {date, trigger, attempt}) != d) == uses.scenario);
  RC_ASSERT((DeriveSeed(seed, s, other_trial, p, {date, trigger, attempt}) != d) == uses.trial);
  RC_ASSERT((DeriveSeed(seed, s, trial, p, {other_date, trigger, attempt}) != d) == uses.site);
  RC_ASSERT((DeriveSeed(seed, s, trial, p, {date, trigger + 1, attempt}) != d) == uses.site);
  const bool attempt_counts = uses.site || p == SeedPurpose::kModelSeedOfOldPlans;
  RC_ASSERT((DeriveSeed(seed, s, trial, p, {date, trigger, attempt + 1}) != d) == attempt_counts);
}

TEST(DeriveSeed, EveryPurposeIsAStreamOfItsOwn) {
  std::set<uint64_t> seen;
  for (SeedPurpose p : kPurposes)
    seen.insert(DeriveSeed(7, "torn/scenario", 3, p, {"2026-11-01", 1, 2}));
  EXPECT_EQ(seen.size(), kPurposes.size());
}

AttemptFault KillUnder(PersistenceModel m) {
  AttemptFault f;
  f.kill_point = "write:state.json";
  f.model = m;
  return f;
}

TEST(DrawModelSeeds, GivesEachKillUnderTornASeedOfItsScenarioDateAndAttempt) {
  Plan p{
      "s",
      5,
      2,
      {{"2026-11-01", 1, {KillUnder(PersistenceModel::kTorn), KillUnder(PersistenceModel::kTorn)}},
       {"2026-11-02", 1, {KillUnder(PersistenceModel::kTorn), AttemptFault{}}},
       {"2026-11-03", 1, {KillUnder(PersistenceModel::kPower)}}}};
  DrawModelSeeds(p);
  const auto& a = p.runs[0].attempts;
  ASSERT_TRUE(a[0].model_seed && a[1].model_seed && p.runs[1].attempts[0].model_seed);
  EXPECT_EQ(*a[1].model_seed, DeriveSeed(5, "s", 2, SeedPurpose::kModelSeed, {"2026-11-01", 1, 2}));
  EXPECT_NE(*a[0].model_seed, *a[1].model_seed);
  EXPECT_NE(*a[0].model_seed, *p.runs[1].attempts[0].model_seed);  // the date counts, unlike before
  EXPECT_FALSE(p.runs[1].attempts[1].model_seed);                  // no kill
  EXPECT_FALSE(p.runs[2].attempts[0].model_seed);                  // power draws nothing
  Plan other = p;
  other.scenario = "t";
  DrawModelSeeds(other);
  EXPECT_NE(other.runs[0].attempts[0].model_seed,
            a[0].model_seed);  // the scenario counts, unlike before
}

TEST(DrawModelSeeds, ThePlannerStoresThemInThePlan) {
  Scenario s;
  s.name = "fixture/in-place-torn";
  s.dates = {"2026-11-01"};
  s.failpoints = {"before_fsync"};
  s.models = {PersistenceModel::kTorn};
  Plan p = MakePlan(s, 1, 0);
  const AttemptFault& f = p.runs[0].attempts[0];
  ASSERT_TRUE(f.model_seed);
  EXPECT_EQ(*f.model_seed, DeriveSeed(1, s.name, 0, SeedPurpose::kModelSeed, {"2026-11-01", 1, 1}));
  EXPECT_EQ(nlohmann::json(p)["runs"][0]["attempts"][0]["model_seed"], *f.model_seed);
  EXPECT_EQ(nlohmann::json(p).get<Plan>(), p);
}

// A plan written before plans carried the torn seed (a counterexample file of an earlier
// version): it loads without one, so the runner derives the seed it ran with, and it writes
// back byte for byte.
TEST(DrawModelSeeds, APlanOfBeforeLoadsWithoutOneAndWritesBackTheSame) {
  const std::string before =
      R"({"runs":[{"attempts":[{"kill_point":"before_fsync","model":"torn","occurrence":2}],)"
      R"("biz_date":"2026-11-01","trigger":1}],"scenario":"fixture/in-place-torn","seed":1,"trial":13})";
  Plan p = nlohmann::json::parse(before).get<Plan>();
  const AttemptFault& f = p.runs[0].attempts[0];
  EXPECT_EQ(f.model, PersistenceModel::kTorn);
  EXPECT_FALSE(f.model_seed);
  EXPECT_EQ(nlohmann::json(p).dump(), before);
}

// A plan written while the seed was called torn_seed: the same seed, written back under its
// model-neutral name.
TEST(DrawModelSeeds, APlanWithATornSeedReadsItAsTheModelSeed) {
  nlohmann::json j = nlohmann::json::parse(
      R"({"kill_point":"before_fsync","model":"torn","occurrence":1,"torn_seed":42})");
  AttemptFault f = j.get<AttemptFault>();
  EXPECT_EQ(f.model_seed, 42u);
  EXPECT_EQ(nlohmann::json(f)["model_seed"], 42u);
  EXPECT_FALSE(nlohmann::json(f).contains("torn_seed"));
  j["model_seed"] = 7;  // both: the current name wins
  EXPECT_EQ(j.get<AttemptFault>().model_seed, 7u);
}

}  // namespace
}  // namespace killpoint
