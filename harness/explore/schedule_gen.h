// RapidCheck's generator of whole fault schedules for a scenario (killpoint explore). A
// schedule is a Plan: a calendar of the scenario's first 1..5 dates; the scheduler's firings
// in any order, so that a date may fire twice (a duplicate trigger) or after a later one (a
// backfill); for each attempt of a firing, a kill (crash point, occurrence, moment) or none,
// and a downstream fault or none; a pause, an overlap and a downstream burst or none, when the
// scenario has them (docs/faults.md); one persistence model for the whole schedule.
//
// Every choice is drawn so that it shrinks towards the simpler story: fewer firings, fewer
// dates (date 0), fewer attempts with faults, no fault, earlier crash points (the scenario's
// failpoints in the order it lists them), the first occurrence, the moment "before", the first
// model, the first downstream fault.
#pragma once

#include <rapidcheck.h>

#include "plan/plan.h"
#include "scenario/scenario.h"

namespace killpoint {

inline constexpr int kMaxExploreDates = 5;

// The scenario must outlive the generator. Plans carry `seed` and trial 0.
rc::Gen<Plan> GenSchedule(const Scenario& scenario, uint64_t seed);

// The attempts a schedule spawns at most: every fault-carrying attempt of every firing.
int FaultedAttempts(const Plan& plan);

}  // namespace killpoint
