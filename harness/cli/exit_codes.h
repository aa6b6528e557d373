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
};

inline int Report(const Error& e) {
  std::cerr << "killpoint: " << e.message << "\n";
  return e.kind == ErrorKind::kBadInput ? kExitBadInput : kExitHarnessError;
}

}  // namespace killpoint
