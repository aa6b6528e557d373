#include "plan/seed.h"

#include "plan/plan.h"
#include "plan/rng.h"

namespace killpoint {
namespace {

uint64_t U(int v) { return static_cast<uint64_t>(v); }

// The attempt: its date, and its trigger and number side by side.
uint64_t SiteMix(const SeedSite& site) {
  return (HashName(site.date) * 0x27D4EB2F165667C5ULL) ^
         ((U(site.trigger) << 32 | U(site.attempt)) * 0x94D049BB133111EBULL);
}

}  // namespace

uint64_t DeriveSeed(uint64_t base, std::string_view scenario, int trial, SeedPurpose purpose,
                    const SeedSite& site) {
  const uint64_t name = HashName(scenario);
  switch (purpose) {
    case SeedPurpose::kPlanShared:
      return name ^ (base * 0x9E3779B97F4A7C15ULL);
    case SeedPurpose::kPlan: {
      PlanRng shared(DeriveSeed(base, scenario, trial, SeedPurpose::kPlanShared));
      shared.Next();  // the rotation
      return shared.Next() ^ (U(trial) * 0xD1B54A32D192ED03ULL);
    }
    case SeedPurpose::kModel:
      return name ^ (base * 0xA24BAED4963EE407ULL) ^ (U(trial) * 0x9FB21C651E98DF25ULL);
    case SeedPurpose::kFaults:
      return name ^ (base * 0xC2B2AE3D27D4EB4FULL) ^ (U(trial) * 0x165667B19E3779F9ULL) ^
             0x6661756C7473ULL;
    case SeedPurpose::kRetryJitter:
      return name ^ (base * 0xC2B2AE3D27D4EB4FULL) ^ (U(trial) * 0x165667B19E3779F9ULL) ^
             SiteMix(site);
    case SeedPurpose::kModelSeed:  // apart from the jitter's, and mixed once more ("torn")
      return PlanRng(name ^ (base * 0xC2B2AE3D27D4EB4FULL) ^ (U(trial) * 0x165667B19E3779F9ULL) ^
                     SiteMix(site) ^ 0x746F726EULL)
          .Next();
    case SeedPurpose::kModelSeedOfOldPlans:
      return base ^ (U(trial) << 20) ^ U(site.attempt);
  }
  return 0;
}

void DrawModelSeeds(Plan& plan) {
  for (PlannedRun& run : plan.runs) {
    for (size_t i = 0; i < run.attempts.size(); ++i) {
      AttemptFault& f = run.attempts[i];
      f.model_seed.reset();
      if (f.kill_point.empty() || !ModelIsSeeded(f.model)) continue;
      SeedSite site{run.biz_date, run.trigger, static_cast<int>(i) + 1};
      f.model_seed =
          DeriveSeed(plan.seed, plan.scenario, plan.trial, SeedPurpose::kModelSeed, site);
    }
  }
}

}  // namespace killpoint
