// Finding a job's crash points: run it once, without faults and with the syscall shim, and
// record every point it passes, in order. The basis of `killpoint points` and of exhaustive runs.
#pragma once

#include <string>
#include <vector>

#include "plan/crash_point.h"
#include "run/trial_runner.h"

namespace killpoint {

// Runs the scenario's setup and one fault-free attempt of `date` (the first date if empty).
Result<std::vector<CrashPoint>> DiscoverPoints(Scenario scenario, std::string date,
                                                const TrialOptions& options);

}  // namespace killpoint
