// Turns (scenario, seed, trial) into a Plan. Pure and deterministic: no clock, no global
// state, no platform-dependent distribution, so every machine derives the same plan.
#pragma once

#include <cstdint>

#include "plan/crash_point.h"
#include "plan/plan.h"
#include "scenario/scenario.h"

namespace killpoint {

// The first attempt of the first date is killed at failpoints[(trial + k) % n] for a
// seed-derived k, so every point is tried once every n trials; the rest is drawn at random:
// how many dates run, duplicate triggers, kills of later attempts and dates, the occurrence,
// and at most one downstream fault. A trial has one persistence model for all its kills.
// The scenario's "faults" (docs/faults.md) add, from a stream of their own: a pause and an
// overlap per attempt, each with its probability, and at most one downstream burst a trial.
//
// A failpoint that is a pattern (plan/point_pattern.h) draws uniformly among the `discovered`
// hits it matches (a fault-free discovery run's points, run/discovery.h), so that "*" can
// fall on any hit of any point rather than on the first one; without a match it is planned as
// the pattern with an occurrence up to max_occurrence. A name draws its occurrence up to
// max_occurrence, but no higher than the hits of it in `discovered` (when it is there): a kill
// planned at a hit the job never makes never fires. Without `discovered`, or with every point
// passed at least max_occurrence times, names draw exactly the plans they drew before.
Plan MakePlan(const Scenario& scenario, uint64_t seed, int trial,
              const std::vector<CrashPoint>& discovered = {});

}  // namespace killpoint
