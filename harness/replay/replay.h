// killpoint replay: runs a counterexample's schedule again, exactly as recorded, and says
// whether the same events happened in the same order and whether the invariant broke again.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "counterexample/counterexample.h"
#include "run/trial_runner.h"
#include "scenario/scenario.h"
#include "util/result.h"

namespace killpoint {

struct ReplayOutcome {
  Scenario scenario;          // as recorded in the counterexample
  std::vector<Event> events;  // this run's history
  std::vector<Verdict> verdicts;
  bool violated = false;  // the counterexample's invariant broke again
  // The first position where this run's fingerprint (counterexample.h) differs from the
  // recorded one; none when the histories are the same.
  std::optional<size_t> first_difference;
  std::filesystem::path sandbox;  // kept when TrialOptions::keep_sandbox
  std::string warning;            // e.g. the scenario file changed since it was recorded
};

// The recorded scenario text is what runs; its recorded path gives {scenario_dir}.
Result<Scenario> RecordedScenario(const CounterexampleFile& c, std::string* warning);

Result<ReplayOutcome> Replay(const CounterexampleFile& c, const TrialOptions& options);

}  // namespace killpoint
