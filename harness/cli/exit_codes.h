// The exit codes of DESIGN.md, and the one place that maps errors to them.
#pragma once

#include <iostream>

#include "util/result.h"

namespace killpoint {

enum ExitCode : int {
  kExitOk = 0,            // every must-hold invariant held
  kExitViolation = 1,     // a must-hold invariant was violated
  kExitBadInput = 2,      // bad usage, a bad scenario or config
  kExitHarnessError = 3,  // the harness itself failed
  // 128 + the signal (130 for SIGINT, 143 for SIGTERM): the run was interrupted and wrote
  // partial results (docs/hardening.md), as shells report a process a signal ended.
  kExitSignalBase = 128,
};

inline int Report(const Error& e) {
  std::cerr << "killpoint: " << e.message << "\n";
  return e.kind == ErrorKind::kBadInput ? kExitBadInput : kExitHarnessError;
}

}  // namespace killpoint
