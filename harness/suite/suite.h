// The whole pipeline over a set of scenarios: for each trial, plan -> run -> history -> check,
// and the verdicts folded into RunResults. Every finished trial is appended to the output
// folder before the next starts, so a kill of the harness loses no finished trial:
//   OUT/<scenario-slug>/history.jsonl   every event of every trial (history_log.h)
//   OUT/<scenario-slug>/trials.jsonl    per trial: plan and verdicts
//   OUT/results.json                    the run's results, rewritten atomically per scenario
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <vector>

#include "reports/results.h"
#include "scenario/scenario.h"
#include "util/result.h"

namespace killpoint {

inline constexpr int kDefaultTrials = 40;

struct SuiteOptions {
  int trials = 0;  // per scenario; 0: the scenario's own "trials", else kDefaultTrials
  uint64_t seed = 1;
  std::optional<int> only_trial;  // run just this trial of each scenario (replay)
  std::filesystem::path out;      // results folder, created if missing
  std::filesystem::path bindir;   // {bindir}
  std::filesystem::path sandbox_root;  // empty: a fresh folder under the system temp dir
  bool keep_sandboxes = false;
  // Sandboxes in the temp folder instead of RAM, and every fsync of a job reaches the disk.
  bool real_disk = false;
  bool exhaustive = false;       // one trial per (crash point, moment, model) instead of sampling
  int exhaustive_limit = 1000;   // at most this many of those trials per scenario
  std::optional<ShardInfo> shard;  // make only this shard's trials (suite/shard.h)
  // Told after each trial: scenario, trial, its verdicts and the sandbox path (when kept).
  std::function<void(const Scenario&, int trial, const std::vector<Verdict>&,
                     const std::filesystem::path& sandbox)>
      on_trial;
  // Told when a scenario starts, with how many trials it will run (for an exhaustive run that
  // is known only after crash-point discovery): for progress displays.
  std::function<void(const Scenario&, int trials)> on_scenario;
};

// How many trials a sampled (not exhaustive) run gives a scenario (its shard's share).
int PlannedTrials(const Scenario& s, const SuiteOptions& options);

// "publish/execute-then-mark" -> "publish-execute-then-mark": a folder name.
std::string Slug(const std::string& scenario_name);

// The command that runs one trial of a scenario again, keeping its sandbox.
std::string ReplayCommand(const Scenario& s, uint64_t seed, int trial, bool exhaustive);

Result<RunResults> RunSuite(const std::vector<Scenario>& scenarios, const SuiteOptions& options);

}  // namespace killpoint
