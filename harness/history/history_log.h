// The on-disk history of a run: one JSON-lines journal per scenario, one line per event, each
// line tagged with its trial. A finished trial is appended with one write and fdatasync, so a
// kill of the harness loses no finished trial; a torn last line is dropped when reading.
#pragma once

#include <filesystem>
#include <map>
#include <string_view>
#include <vector>

#include "history/event.h"
#include "util/result.h"

namespace killpoint {

// Serializes a trial's events as JSON lines (each with "trial": N).
std::string FormatTrialHistory(int trial, const std::vector<Event>& events);

Status AppendTrialHistory(const std::filesystem::path& log, int trial,
                          const std::vector<Event>& events);

// Events by trial. A last line without its newline (a crash mid-append) is ignored; any other
// malformed line is an error naming the file and line.
Result<std::map<int, std::vector<Event>>> ReadHistoryLog(const std::filesystem::path& log);

// The same, from the journal's text; `source` names it in errors. Never throws.
Result<std::map<int, std::vector<Event>>> ParseHistoryLog(std::string_view text,
                                                          const std::string& source);

}  // namespace killpoint
