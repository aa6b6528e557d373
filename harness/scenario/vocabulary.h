// The names a scenario may use. The checkers (harness/check) implement exactly these
// invariants; a test pins that the two lists agree.
#pragma once

#include <array>
#include <string_view>

namespace killpoint {

// No file changed outside the job's sandbox (docs/syscall-shim.md, "Writes outside the sandbox").
inline constexpr const char* kWritesInSandbox = "writes_in_sandbox";

// A server kill (docs/services.md, "Server faults") lost nothing its server held before it.
inline constexpr const char* kServerKillLosesNothing = "server_kill_loses_nothing";

inline constexpr std::array<std::string_view, 13> kInvariantNames = {
    "one_row_per_date", "amount_matches_source", "no_double_publish", "no_loss", "no_silent_loss",
    "state_readable", "converges", "commits_survive",
    // the harness's own results writer (docs/hardening.md, "Dogfood")
    "journal_complete",
    // the catalogue (docs/catalogue.md): per business key, not per date
    "one_delivery_per_key",
    // retry strategies (docs/retry.md)
    "retry_policy_respected",
    // writes outside the sandbox (docs/syscall-shim.md), seen by the shim
    kWritesInSandbox,
    // server faults (docs/services.md), read from the history's server_fault events
    kServerKillLosesNothing};

// Jitter of a retry policy's backoff delay: kJitterNames, scenario/scenario.h.

// Persistence models: scenario/persistence_model.h.

// The operations the syscall shim reports; its crash points are named "<op>:<path>".
// "sync:." is sync(2) or a syncfs(2) of the sandbox's file system: every file and folder of the
// sandbox made durable at once (the supervisor reports it; the shim does not see it).
inline constexpr std::array<std::string_view, 10> kSyscallOps = {
    "open",   "write",  "truncate", "fsync", "fdatasync",
    "rename", "unlink", "mkdir",    "close", "sync"};

// The failpoints of a scenario that loads the shim and lists none: a pattern
// (plan/point_pattern.h) matching every syscall point, which is every point with a ':'.
inline constexpr const char* kEverySyscallPoint = "*:*";

// Placeholders a job command may use; the runner substitutes them per attempt.
inline constexpr std::array<std::string_view, 8> kPlaceholders = {
    "bindir", "scenario_dir", "workdir", "biz_date", "dates", "downstream", "attempt", "trial"};

}  // namespace killpoint
