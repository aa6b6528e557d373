// A trial's history as a timeline for a terminal (killpoint replay): the lanes of
// BuildTimeline (timeline.h), one block per attempt with its retry wait, one line per mark
// (failpoint hits, the kill, rollbacks, publishes, queries, alerts), how it ended and the
// first line of its stderr; then the notes and the final state.
#pragma once

#include <string>
#include <vector>

#include "history/event.h"
#include "reports/timeline.h"

namespace killpoint {

std::string RenderTextTimeline(const std::vector<Event>& events,
                               const TimelineOptions& options = {});

}  // namespace killpoint
