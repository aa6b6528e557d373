// A trial whose job never got going: every attempt of it (the final pass too) ended by itself
// with the same non-zero exit code before reaching any crash point. That is a broken job or
// command (not found, exit 127; not executable, 126; a script path the sandbox, the job's working
// directory, does not hold; a Python import error), not a verdict on its crash safety: a scenario
// whose every trial ended so "never ran" (results/results.h) and the run exits 2.
//
// "Before any crash point", from the history alone:
// Only the attempts' events count: job.setup's (no date) may pass crash points of their own.
// - no attempt passed a crash point: no failpoint event, no points_passed count above zero, no
//   kill, pause or overlap, no after_every_crash check, no write outside the sandbox;
// - no attempt called the downstream: no publish, query, alert, bad_request, job_retry or
//   job_wait event;
// - every attempt exited by itself (no timeout, no kill by the harness, no signal at all) with
//   one and the same non-zero code.
// A job that reaches a point and then fails, fails differently from attempt to attempt, or dies
// of a signal (SIGXFSZ at the sandbox's size limit, SIGSEGV: it ran, with no point to show for
// it when the scenario names none) is judged by converges as before.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "history/event.h"

namespace killpoint {

struct StartFailure {
  int64_t code = 0;         // the exit code every attempt ended with
  std::string stderr_tail;  // the first attempt's stderr tail (the last lines it wrote)
  bool operator==(const StartFailure&) const = default;
};

// Set when every attempt of the trial failed the same way before any crash point; nullopt when
// any attempt got further, succeeded, was killed, or when no attempt ran.
std::optional<StartFailure> StartFailureOf(const std::vector<Event>& events);

// What the exit code usually means for a job that never started: "command not found" for 127,
// "found but not executable" for 126; "" for the others.
std::string StartFailureHint(int64_t code);

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(StartFailure, code, stderr_tail)

}  // namespace killpoint
