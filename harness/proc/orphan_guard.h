// What kills a job's processes when the harness itself dies without cleaning up (SIGKILL, the
// OOM killer, a crash). PR_SET_PDEATHSIG (process.h) covers only each job's leader; the
// processes it started (in its group, or escaped with setsid or a double fork) would live on.
//
// StartOrphanGuard forks a small process that holds the read end of a pipe whose write end
// only the harness holds. It blocks in read(); when the harness is gone, however it went, the
// kernel closes the write end and read() returns 0. The guard then SIGKILLs every process
// whose environment carries a tag this harness made (process_tag.h: "<harness pid>.N"), kills
// the run's cgroup where there is one (job_cgroup.h: what cleared its tag too), removes the
// folders the harness told it about (RemoveOnHarnessDeath: the sandboxes' temporary root) and
// exits. On a normal exit of the harness it finds nothing and exits at once. It runs in a
// session of its own with SIGINT and SIGHUP ignored, so a Ctrl-C at the terminal (sent to the
// harness's process group) or a closed terminal does not take it first; its stdin, stdout and
// stderr are /dev/null, so it never holds a caller's pipe open. docs/decisions.md says why
// this and a subreaper.
#pragma once

#include <filesystem>

#include "util/result.h"

namespace killpoint {

// Call once, from the main thread, before any other thread exists (the child runs C++ after
// fork, which is safe only in a single-threaded process). Idempotent.
Status StartOrphanGuard();

// Tells the guard to remove `dir` (with everything in it) once the harness is gone, after the
// processes are killed. For folders the harness removes itself on a normal exit; removing a
// folder that is gone already does nothing. A no-op when no guard was started.
void RemoveOnHarnessDeath(const std::filesystem::path& dir);

}  // namespace killpoint
