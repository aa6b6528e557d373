// Errors are values in the core: every fallible call returns Result<T>.
// Only the CLI (harness/cli) turns an Error into a message and an exit code.
#pragma once

#include <boost/outcome/result.hpp>
#include <string>
#include <utility>

namespace killpoint {

// What went wrong decides the exit code (see DESIGN.md): bad input is 2, the harness itself 3.
enum class ErrorKind { kBadInput, kHarness };

struct Error {
  ErrorKind kind = ErrorKind::kHarness;
  std::string message;

  static Error BadInput(std::string m) { return {ErrorKind::kBadInput, std::move(m)}; }
  static Error Harness(std::string m) { return {ErrorKind::kHarness, std::move(m)}; }
};

template <class T>
using Result = boost::outcome_v2::result<T, Error, boost::outcome_v2::policy::terminate>;

// For calls that return nothing but may fail.
using Status = Result<void>;
inline Status Ok() { return boost::outcome_v2::success(); }

}  // namespace killpoint
