// killpoint explore: RapidCheck generates whole schedules (schedule_gen.h), runs each as a
// trial, and checks the scenario's invariants; on the first violation it shrinks the schedule,
// rerunning each smaller candidate for real, and keeps the smallest one that still violates.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "counterexample/counterexample.h"
#include "results/results.h"
#include "run/trial_runner.h"
#include "scenario/scenario.h"
#include "util/result.h"

namespace killpoint {

struct ExploreOptions {
  uint64_t seed = 1;
  int trials = 200;                                 // schedules tried before giving up
  std::optional<std::chrono::seconds> time_budget;  // and/or a wall-clock budget for the search
  int shrink_trials = 300;                          // most trials spent shrinking
  std::vector<std::string> invariants;  // which to search for; empty: the scenario's all
  // Draw every fault kind, not only those the scenario enables (schedule_gen.h's FaultSwitches).
  bool all_faults = false;
  TrialOptions trial;
  // Told after each trial: its number, whether it is a shrink step, its schedule's summary and
  // whether it violated.
  std::function<void(int n, bool shrinking, const std::string& summary, bool violated)> on_trial;
};

struct ExploreOutcome {
  int trials = 0;                           // searching
  int shrink_trials = 0;                    // shrinking, each a real trial
  std::optional<CounterexampleFile> found;  // the smallest schedule that violates; none found
  std::optional<CounterexampleFile> first;  // the schedule first found, before shrinking
  // The SIGINT/SIGTERM that stopped the search or the shrinking (proc/interrupt.h), else 0. The
  // trial in flight was abandoned; `found` is then the smallest violating schedule so far.
  int interrupted = 0;
  // The searched schedules whose every attempt failed the same way before any crash point
  // (history/start_failure.h). The search stops once its first kSchedulesToJudgeNeverRan did:
  // no fault can fire in a job that never gets going, so no schedule would differ.
  StartFailureStats start_failures;
  // The servers the search started (docs/services.md): one of each kind the scenario names,
  // lent to every schedule and reset at each one's start, unless a server kill needed more.
  int servers_started = 0;

  // The job never ran: every schedule searched ended so, with one exit code. Not a verdict.
  bool NeverRan() const {
    return !found && trials > 0 && start_failures.trials == trials && start_failures.same;
  }
};

inline constexpr int kSchedulesToJudgeNeverRan = 3;

// A SIGINT/SIGTERM (options.trial.stop) ends the search between schedules, or kills the
// attempt in flight and abandons that schedule; what was complete is returned, with
// `interrupted` set.
Result<ExploreOutcome> Explore(const Scenario& scenario, const ExploreOptions& options);

}  // namespace killpoint
