// Finds and kills every process a job left behind, wherever it went. Each spawned job gets a
// unique tag in its environment (kProcessTagVariable=TAG); children inherit it, including
// those that leave the job's process group (setsid, a double fork), which a killpg misses.
// docs/decisions.md says why a tag rather than a subreaper or a cgroup.
#pragma once

#include <string>

namespace killpoint {

inline constexpr const char* kProcessTagVariable = "KILLPOINT_PROCESS_TAG";

// A tag no other spawn of any process on this machine uses: "<harness pid>.<counter>".
std::string NewProcessTag();

// SIGKILLs every process (but the caller) whose environment holds kProcessTagVariable=tag, and
// waits for each to exit; repeats until a scan of /proc finds none (a process may fork while
// it is scanned). Returns how many of them were outside process group `group` (<= 0: all): the
// ones a killpg of the group had missed. A process that clears its environment escapes.
int KillTagged(const std::string& tag, int group = 0);

// SIGKILLs every process carrying a tag that harness process `harness` made (any
// "<harness>.N"): what a harness that died left behind (orphan_guard.h). Returns how many.
int KillTaggedBy(int harness);

}  // namespace killpoint
