// Exhaustive plans: instead of sampling, one trial per (crash point, moment, model), so that a
// design review can say "every crash point of this job was tried". The points come from a
// fault-free discovery run (run/discovery.h); trial i is the i-th combination, in the order
// the job passes the points, then before/after/mid, then the scenario's models.
#pragma once

#include <vector>

#include "plan/crash_point.h"
#include "plan/plan.h"
#include "scenario/scenario.h"

namespace killpoint {

std::vector<AttemptFault> EnumerateFaults(const std::vector<CrashPoint>& points,
                                          const std::vector<PersistenceModel>& models);

// One fault per pause point, one per overlap point and one burst, as the scenario's "faults"
// allow (docs/faults.md); exhaustive runs try each once, after the kills.
std::vector<AttemptFault> EnumerateProcessFaults(const Scenario& scenario);

// The whole exhaustive space of a scenario: a kill at every discovered point but its
// hold_points (held, never killed: docs/faults.md) and, when the scenario does not load the
// shim, its syscall points (they could not fire), each moment and model, then
// EnumerateProcessFaults. Trial i of an exhaustive run is element i.
std::vector<AttemptFault> ExhaustiveSpace(const Scenario& scenario,
                                          const std::vector<CrashPoint>& discovered);

// The first date's first attempt dies by `fault`; the retries and the final pass are fault-free.
Plan MakeExhaustivePlan(const Scenario& scenario, uint64_t seed, int trial,
                        const AttemptFault& fault);

}  // namespace killpoint
