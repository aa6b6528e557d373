// Crash point patterns (docs/scenarios.md, "failpoints"): a scenario may name points it cannot
// know in advance with `*` (any run of characters, ':' and '/' included) and `?` (any one
// character), as in "rename:*:state.json", "write:state*.json*", "fsync:*" or "*". Pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "plan/crash_point.h"

namespace killpoint {

// True when the name has a `*` or a `?`: it selects points rather than naming one.
bool IsPointPattern(std::string_view name);

// fnmatch-like, without classes or escapes: `*` and `?` match any character, ':' and '/' too.
bool MatchPoint(std::string_view pattern, std::string_view name);

// The discovered points (plan/crash_point.h) a pattern selects, in the order given, leaving
// out those in `excluded` (a scenario's hold_points: held, never killed).
std::vector<CrashPoint> PointsMatching(std::string_view pattern,
                                       const std::vector<CrashPoint>& discovered,
                                       const std::vector<std::string>& excluded);

// The syscall ops (kSyscallOps) whose points a kill point may be: {"write"} for
// "write:state*" or "write:<tmp1>", {} for "before_*" (no syscall point can match), every op
// for "*" or "*:*". The shim knows neither patterns nor aliases, so the runner makes every
// point of these ops wait for an answer (protocol v1.2's KILLPOINT_WAIT_OPS).
std::vector<std::string> OpsMatching(std::string_view point);

}  // namespace killpoint
