// The last line against escaped processes: a cgroup v2 for the run's jobs, where this process
// may create one (root, or a delegated tree). Every job is moved into it between vfork and
// exec, before it can start anything, and what it starts stays in it whatever it does to its
// environment, group and session. While the harness lives, the environment tag and the
// subreaper find every escape (process_tag.h); the cgroup serves when the harness is gone: the
// orphan guard (orphan_guard.h) kills the whole cgroup, so even a process that cleared its
// environment and left its session (`env -i setsid cmd &`), which then has no tag and no
// subreaper, dies with the run. Where no cgroup can be made nothing else changes, and that one
// case is left (docs/hardening.md).
#pragma once

#include <filesystem>

#include "util/result.h"

namespace killpoint {

// Creates `<cgroup2 mount>/<this process's cgroup>/killpoint-<pid>` and opens its
// cgroup.procs for the spawns. An error says why there is none (no cgroup2 mount, no
// permission); the run goes on without it. Call once, before any job is spawned.
Result<std::filesystem::path> CreateJobCgroup();

// Whether CreateJobCgroup would succeed here: creates and removes a probe cgroup. For tests.
bool JobCgroupsAvailable();

// The run's cgroup.procs, open for writing (close-on-exec): a process that writes "0" to it
// moves itself into the cgroup. -1 when there is none.
int JobCgroupProcsFd();

// SIGKILLs every process in cgroup `dir` (cgroup.kill; on a kernel before 5.14, each pid of its
// cgroup.procs), waits until it is empty and removes it, giving up after about two seconds.
// For the orphan guard, which runs it after the harness is gone.
void KillAndRemoveCgroup(const std::filesystem::path& dir);

}  // namespace killpoint
