// Finding a job's crash points: run it once, without faults and with the syscall shim, and
// record every point it passes, in order. The basis of `killpoint points` and of exhaustive runs.
#pragma once

#include <string>
#include <vector>

#include "plan/crash_point.h"
#include "plan/exhaustive.h"
#include "run/trial_runner.h"

namespace killpoint {

// Runs the scenario's setup and one fault-free attempt of `date` (the first date if empty).
// `unseen`, when given, gets for each point (same index) where the shim noticed a write it did
// not see (docs/syscall-shim.md, "Unseen writes"), or "".
Result<std::vector<CrashPoint>> DiscoverPoints(Scenario scenario, std::string date,
                                               const TrialOptions& options,
                                               std::vector<std::string>* unseen = nullptr);

// Runs the scenario's setup and then every date in turn, fault-free, as one schedule: element d
// holds what the first attempt of the scenario's d-th date passed, after the dates before it
// ran (a job whose second date takes another path than its first shows it here).
Result<std::vector<DatePoints>> DiscoverEveryDate(Scenario scenario, const TrialOptions& options);

// The points a trial of `scenario` can be killed at. Discovery always loads the shim (to list
// every point), but a scenario that does not (Scenario::UsesShim: no syscall point named, no
// model but process) runs its trials without it, where no syscall point fires: a pattern such
// as "*" must not plan one (issue 34: every such trial was "not exercised").
std::vector<CrashPoint> KillablePoints(const Scenario& scenario, std::vector<CrashPoint> points);

}  // namespace killpoint
