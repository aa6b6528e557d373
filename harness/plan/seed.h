// Where every seed of a trial comes from: one function, so that the run's --seed, the
// scenario and the trial decide every random choice, each choice its own stream.
#pragma once

#include <cstdint>
#include <string_view>

namespace killpoint {

struct Plan;

// What a derived seed is for. Each purpose mixes its inputs with its own constants, so that
// the streams are independent, and adding one leaves the others' draws as they were.
enum class SeedPurpose {
  // The plan's main stream, shared by every trial of (base, scenario): the trial is left out,
  // so that its first draw rotates the primary kill through the failpoints trial by trial.
  kPlanShared,
  // The plan's main stream of one trial: dates, triggers, kills, the downstream fault.
  kPlan,
  kModel,        // the trial's persistence model
  kFaults,       // pauses, overlaps, bursts (docs/faults.md)
  kRetryJitter,  // the jitter of one attempt's backoff (site: date, trigger, attempt)
  // The draws of a seeded persistence model (torn's cut) after one kill (site: date, trigger,
  // attempt). Its values are those of the torn cut's seed before the name was model-neutral.
  kModelSeed,
  // The seed of a plan written before plans carried it (AttemptFault::model_seed): the
  // derivation those plans were run with, kept so that they replay the same. Leaves out the
  // scenario and the date; only `base`, `trial` and site.attempt count.
  kModelSeedOfOldPlans,
};

// The attempt a stream is for; purposes of a whole trial ignore it.
struct SeedSite {
  std::string_view date = {};
  int trigger = 0;
  int attempt = 0;
};

// The seed of `purpose` for (base: the run's --seed, scenario name, trial, site). Pure.
// Values are pinned: plans, retry delays and torn cuts of a given --seed depend on them.
uint64_t DeriveSeed(uint64_t base, std::string_view scenario, int trial, SeedPurpose purpose,
                    const SeedSite& site = {});

// Gives every kill under a seeded model (ModelIsSeeded) in `plan` the seed of its draws
// (kModelSeed, from the plan's seed, scenario and trial and the kill's date, trigger and
// attempt); other kills keep none. Every planner calls it on the plans it makes.
void DrawModelSeeds(Plan& plan);

}  // namespace killpoint
