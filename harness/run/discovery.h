// Finding a job's crash points: run it once, without faults and with the syscall shim, and
// record every point it passes, in order. The basis of `killpoint points` and of exhaustive runs.
#pragma once

#include <string>
#include <vector>

#include "plan/crash_point.h"
#include "run/trial_runner.h"

namespace killpoint {

// Runs the scenario's setup and one fault-free attempt of `date` (the first date if empty).
// `unseen`, when given, gets for each point (same index) where the shim noticed a write it did
// not see (docs/syscall-shim.md, "Unseen writes"), or "".
Result<std::vector<CrashPoint>> DiscoverPoints(Scenario scenario, std::string date,
                                               const TrialOptions& options,
                                               std::vector<std::string>* unseen = nullptr);

// Removes from an exhaustive space the kills at a moment its point cannot have: an unseen
// write is killed after it only (KillMoments).
void DropImpossibleMoments(std::vector<AttemptFault>& space, const std::vector<CrashPoint>& points,
                           const std::vector<std::string>& unseen);

}  // namespace killpoint
