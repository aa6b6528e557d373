// Exhaustive plans: instead of sampling, one trial per (date, crash point, moment, model), so
// that a design review can say "every crash point of this job was tried". The points come from
// a fault-free discovery run of every date in turn (run/discovery.h); trial i is the i-th
// combination: the first date's points in the order the job passes them, each with
// before/after/mid and then the scenario's models, then the second date's, and so on, then the
// process faults. A kill on the d-th date runs the dates before it fault-free and stops the
// plan at that date: its retries and the final pass follow (docs/scenarios.md, "Exhaustive
// runs"). With a --limit below the total, the trials are spread evenly over the whole space
// (SpreadTrial), never a prefix of it.
#pragma once

#include <string>
#include <vector>

#include "plan/crash_point.h"
#include "plan/plan.h"
#include "scenario/scenario.h"

namespace killpoint {

std::vector<AttemptFault> EnumerateFaults(const std::vector<CrashPoint>& points,
                                          const std::vector<PersistenceModel>& models);

// One fault per pause point, one per overlap point and one burst, as the scenario's "faults"
// allow (docs/faults.md); exhaustive runs try each once, after the kills, on the first date.
std::vector<AttemptFault> EnumerateProcessFaults(const Scenario& scenario);

// The exhaustive space of one date: a kill at every discovered point but its hold_points
// (held, never killed: docs/faults.md) and, when the scenario does not load the shim, its
// syscall points (they could not fire), each moment and model, then EnumerateProcessFaults.
std::vector<AttemptFault> ExhaustiveSpace(const Scenario& scenario,
                                          const std::vector<CrashPoint>& discovered);

// Removes from an exhaustive space the kills at a moment its point cannot have: an unseen
// write is killed after it only (KillMoments). `unseen` is indexed like `points`.
void DropImpossibleMoments(std::vector<AttemptFault>& space, const std::vector<CrashPoint>& points,
                           const std::vector<std::string>& unseen);

// What a fault-free run passed on one date's first attempt, in order; `unseen[i]` is where
// the shim noticed points[i] as a write it did not see, or "" (docs/syscall-shim.md).
struct DatePoints {
  std::vector<CrashPoint> points;
  std::vector<std::string> unseen;
};

// One combination of an exhaustive run: `fault` on the first attempt of the scenario's
// `date`-th date (0-based).
struct ExhaustiveTry {
  size_t date = 0;
  AttemptFault fault;
  bool operator==(const ExhaustiveTry&) const = default;
};

// The whole exhaustive space of a scenario, `by_date[d]` the points of its d-th date: every
// date's kills (ExhaustiveSpace's, with DropImpossibleMoments), date by date, then the
// process faults once, on the first date.
std::vector<ExhaustiveTry> ExhaustiveTries(const Scenario& scenario,
                                           const std::vector<DatePoints>& by_date);

// The element of a space of `total` combinations that trial `trial` of `count` tries
// (0 <= trial < count <= total): floor(trial * total / count), so that `count` trials are
// spread evenly over the whole space, the first and the last parts alike; with count ==
// total, trial i tries element i.
size_t SpreadTrial(int trial, int count, size_t total);

// The plan of one combination: the dates before `t.date` run fault-free, then t.date's first
// attempt dies by t.fault; its retries and the final pass are fault-free.
Plan MakeExhaustivePlan(const Scenario& scenario, uint64_t seed, int trial, const ExhaustiveTry& t);

}  // namespace killpoint
