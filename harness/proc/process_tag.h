// Finds and kills every process a job left behind, wherever it went. Each spawned job gets a
// unique tag in its environment (kProcessTagVariable=TAG); children inherit it, including
// those that leave the job's process group (setsid, a double fork), which a killpg misses.
// A process that clears its environment (`env -i`) and leaves the group and session escapes the
// tag; the harness is also its jobs' subreaper, so such a process, once its parent is gone, is
// a child of the harness, found by KillAdoptedOrphans. docs/decisions.md says why a tag and a
// subreaper, with a cgroup (job_cgroup.h) only for when the harness is gone.
#pragma once

#include <sys/types.h>

#include <string>

namespace killpoint {

inline constexpr const char* kProcessTagVariable = "KILLPOINT_PROCESS_TAG";

// A tag no other spawn of any process on this machine uses: "<harness pid>.<counter>".
std::string NewProcessTag();

// A tag for a server the harness runs for a scenario (harness/service/): "<harness pid>.server<N>".
// KillTaggedBy finds it (the orphan guard kills it with the harness's jobs), KillAdoptedOrphans
// leaves it alone: a server is a child of the harness, not an orphan of a job.
std::string NewServerTag();

// SIGKILLs every process (but the caller) whose environment holds kProcessTagVariable=tag, and
// waits for each to exit; repeats until a scan of /proc finds none (a process may fork while
// it is scanned). Returns how many of them were outside process group `group` (<= 0: all): the
// ones a killpg of the group had missed. A process that clears its environment escapes.
int KillTagged(const std::string& tag, int group = 0);

// SIGKILLs every process carrying a tag that harness process `harness` made (any
// "<harness>.N"): what a harness that died left behind (orphan_guard.h). Returns how many.
int KillTaggedBy(int harness);

// Makes this process the subreaper of its descendants (PR_SET_CHILD_SUBREAPER): a job's process
// whose parent exits is reparented to it, not to init, whatever it did to its environment,
// group and session. Call once, before the first job is spawned. False if the kernel refused.
bool BecomeSubreaper();

// SIGKILLs and reaps every child of this process but the ones it made itself by fork without
// exec (the orphan guard, a spawn before its exec): the orphans of its jobs it adopted as their
// subreaper. Call only while no job of this process runs and none is being spawned, and no
// popen child lives. `first`: the smallest pid such an orphan can have (its attempt's leader;
// 0: any). Returns how many were alive. Does nothing before BecomeSubreaper: a process that is
// no subreaper adopts nobody, and its children are all its own.
int KillAdoptedOrphans(pid_t first = 0);

}  // namespace killpoint
