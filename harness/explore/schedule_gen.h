// RapidCheck's generator of whole fault schedules for a scenario (killpoint explore). A
// schedule is a Plan: a calendar of the scenario's first 1..5 dates; the scheduler's firings
// in any order, so that a date may fire twice (a duplicate trigger) or after a later one (a
// backfill); for each attempt of a firing, a kill (crash point, occurrence, moment) or none,
// and a downstream fault or none; a pause, an overlap and a downstream burst or none, when the
// scenario has them (docs/faults.md); one persistence model for the whole schedule.
//
// Only the faults the scenario enables are drawn (FaultSwitches, below), unless widened.
//
// Every choice is drawn so that it shrinks towards the simpler story: fewer firings, fewer
// dates (date 0), fewer attempts with faults, no fault, earlier crash points (the scenario's
// failpoints in the order it lists them), the first occurrence, the moment "before", the first
// model, the first downstream fault.
#pragma once

#include <rapidcheck.h>

#include "plan/crash_point.h"
#include "plan/plan.h"
#include "scenario/scenario.h"

namespace killpoint {

inline constexpr int kMaxExploreDates = 5;

// The fault kinds a schedule may draw. By default the scenario's switches, as `run` honours
// them: duplicate and out-of-order firings only with duplicate_trigger_probability above 0,
// downstream faults only with downstream.fault_probability above 0, a pause, an overlap or a
// burst only with its probability above 0. all_faults (`explore --all-faults`) widens them to
// every kind: any firings, the listed downstream faults (all three when none is listed), and
// every pause, overlap and burst the scenario describes whatever its probability.
struct FaultSwitches {
  bool duplicates = false;                     // a date may fire twice, or after a later one
  std::vector<std::string> downstream_faults;  // empty: none
  bool pause = false;
  bool overlap = false;
  bool burst = false;
  bool net = false;     // faults.net (docs/services.md)
  bool server = false;  // faults.server (docs/services.md, "Server faults")
};
FaultSwitches SwitchesOf(const Scenario& scenario, bool all_faults);

// The scenario and `discovered` must outlive the generator. Plans carry `seed` and trial 0.
// `discovered`: the points a fault-free run passed (run/discovery.h), from which a failpoint
// pattern draws its kills, as `run` does; empty, a pattern kills at its first matches.
rc::Gen<Plan> GenSchedule(const Scenario& scenario, uint64_t seed, bool all_faults = false,
                          const std::vector<CrashPoint>& discovered = {});

// The attempts a schedule spawns at most: every fault-carrying attempt of every firing.
int FaultedAttempts(const Plan& plan);

}  // namespace killpoint
