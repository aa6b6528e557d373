// A trial's history as a timeline for a terminal: one block per attempt (biz date, firing,
// attempt, virtual time), one line per event that tells the story: the fault planned, failpoint
// hits, the kill, the exit, rollbacks, publishes, queries, alerts, retry waits, the final pass.
// Used by `killpoint replay`.
#pragma once

#include <string>
#include <vector>

#include "history/event.h"

namespace killpoint {

std::string RenderTextTimeline(const std::vector<Event>& events);

}  // namespace killpoint
