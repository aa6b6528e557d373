// A counterexample lists only the faults that happened (issue 17): the kills of its plan that
// never fired are dropped, and its recorded history is rewritten into the one the trimmed plan
// gives, so that `killpoint replay` of the file finds the same history. What an unfired kill
// changed in a history, and only that:
//   - the plan in trial_start, and the fault in the attempt's spawn;
//   - with the syscall shim (and no pause or overlap at a syscall point, which makes every point
//     wait): the attempt's syscall points were reported two way (a failpoint event each) as the
//     armed point and, under a model other than process, the operations the durability tracker
//     waits at; without the kill every syscall point of the attempt passes one way, counted by
//     name in its points_passed events (history/event.h).
#pragma once

#include <vector>

#include "history/event.h"
#include "history/exercise.h"
#include "plan/plan.h"

namespace killpoint {

// The history `FiredOnly(plan, e)` gives, from the one `plan` gave. `uses_shim`: whether the
// scenario's attempts ran with the shim (Scenario::LoadsShim).
std::vector<Event> HistoryOfFiredOnly(const Plan& plan, const TrialExercise& e,
                                      const std::vector<Event>& events, bool uses_shim);

}  // namespace killpoint
