// The whole pipeline over a set of scenarios: for each trial, plan -> run -> history -> check,
// and the verdicts folded into RunResults, in trial order whatever order `jobs` parallel
// workers finish them in (ordered_fold.h). Every finished trial is appended to the output
// folder as soon as it finished, so a kill of the harness loses no finished trial:
//   OUT/run.json                        what the run was asked to do (run_manifest.h)
//   OUT/<scenario-slug>/history.jsonl   every event of every trial (journal.h)
//   OUT/<scenario-slug>/trials.jsonl    per trial: plan and verdicts; a trial is finished once
//                                       its line is there
//   OUT/<scenario-slug>/counterexamples/ a file per example, written before its trial's lines
//   OUT/results.json                    the run's results, rewritten atomically per scenario
//                                       ("partial": "running" until the run ends)
// A SIGINT or SIGTERM (proc/interrupt.h) stops the run between trials and kills the attempts in
// flight; the finished trials' results are written with "partial": "interrupted by SIGINT"
// and RunSuite returns them (the unfinished trials are not recorded). `resume` continues a run
// in OUT from its journals: the finished trials are kept, only the others run, and the result
// equals an uninterrupted run's.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <vector>

#include "channel/interception.h"
#include "proc/interrupt.h"
#include "proc/stop_token.h"
#include "results/results.h"
#include "scenario/scenario.h"
#include "util/result.h"

namespace killpoint {

inline constexpr int kDefaultTrials = 40;

struct SuiteOptions {
  int trials = 0;  // per scenario; 0: the scenario's own "trials", else kDefaultTrials
  uint64_t seed = 1;
  std::optional<int> only_trial;       // run just this trial of each scenario (replay)
  std::filesystem::path out;           // results folder, created if missing
  std::filesystem::path bindir;        // {bindir}
  std::filesystem::path sandbox_root;  // empty: a fresh folder under the system temp dir
  bool keep_sandboxes = false;
  // Trials run at once (--jobs); the results are the same whatever it is. 0: one per core.
  int jobs = 1;
  // Sandboxes in the temp folder instead of RAM, and every fsync of a job reaches the disk.
  bool real_disk = false;
  // What turns the jobs' file-system calls into crash points (channel/interception.h).
  Interception intercept = Interception::kPreload;
  bool exhaustive = false;         // one trial per (crash point, moment, model) instead of sampling
  int exhaustive_limit = 1000;     // at most this many of those trials per scenario
  std::optional<ShardInfo> shard;  // make only this shard's trials (suite/shard.h)
  // Continue the run in `out` (its run.json must match these options and scenarios): keep its
  // finished trials (journal.h repairs a torn tail), run only the others.
  bool resume = false;
  // Told after each trial: scenario, trial, its verdicts and the sandbox path (when kept).
  std::function<void(const Scenario&, int trial, const std::vector<Verdict>&,
                     const std::filesystem::path& sandbox)>
      on_trial;
  // Told when a scenario starts, with how many trials it will run (for an exhaustive run that
  // is known only after crash-point discovery): for progress displays.
  std::function<void(const Scenario&, int trials)> on_scenario;
  // Stops the run between trials and the attempts in flight (TrialOptions::stop): the
  // harness's SIGINT/SIGTERM unless a test gives its own.
  StopToken stop = InterruptToken();
};

// The interception a scenario's trials run under (results.h's ScenarioResult::interception):
// NameOf(intercept) when its jobs' file-system calls are intercepted (Scenario::LoadsShim),
// else kNoInterception: a scenario that needs none claims none.
std::string InterceptionUsed(const Scenario& s, Interception intercept);
// A run's (RunResults::interception): NameOf(intercept) when any of `scenarios` is
// intercepted, else kNoInterception.
std::string InterceptionUsed(const std::vector<Scenario>& scenarios, Interception intercept);

// How many trials a sampled (not exhaustive) run gives a scenario (its shard's share).
int PlannedTrials(const Scenario& s, const SuiteOptions& options);

// The command that runs one trial of a scenario again, keeping its sandbox. `limit`: an
// exhaustive run's --limit when it tried fewer trials than its combinations (0: none), which
// decides what each trial tries (SpreadTrial, plan/exhaustive.h).
std::string ReplayCommand(const Scenario& s, uint64_t seed, int trial, bool exhaustive,
                          int limit = 0);

// The results; when interrupted (options.stop stopped) the partial ones, with `partial` set.
Result<RunResults> RunSuite(const std::vector<Scenario>& scenarios, const SuiteOptions& options);

// OUT/results.json, replaced atomically.
Status WriteResultsFile(const std::filesystem::path& out, const RunResults& results);

}  // namespace killpoint
