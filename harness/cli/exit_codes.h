// The exit codes of DESIGN.md, and the one place that maps errors to them.
#pragma once

#include <iostream>

#include "util/result.h"

namespace killpoint {

enum ExitCode : int {
  kExitOk = 0,         // every must-hold invariant held
  kExitViolation = 1,  // a must-hold invariant was violated
  // Bad usage, a bad scenario or config, or a job that never ran: a scenario whose every
  // attempt failed the same way before any crash point (history/start_failure.h).
  kExitBadInput = 2,
  kExitHarnessError = 3,  // the harness itself failed
  // No must-hold invariant was violated, but a scenario's planned kills did not fire: its
  // invariants were not tested where it said (docs/reports.md, "Not exercised").
  kExitNotExercised = 4,
  // 128 + the signal (130 for SIGINT, 143 for SIGTERM): the run was interrupted and wrote
  // partial results (docs/hardening.md), as shells report a process a signal ended.
  kExitSignalBase = 128,
};

// The gate's verdict: a job that never ran wins (the run could not judge it, as a bad scenario
// file stops a run before any trial), then a violation, then a scenario not exercised.
inline int GateExit(bool must_hold_violated, bool not_exercised, bool never_ran = false) {
  if (never_ran) return kExitBadInput;
  if (must_hold_violated) return kExitViolation;
  return not_exercised ? kExitNotExercised : kExitOk;
}

inline int Report(const Error& e) {
  std::cerr << "killpoint: " << e.message << "\n";
  return e.kind == ErrorKind::kBadInput ? kExitBadInput : kExitHarnessError;
}

}  // namespace killpoint
