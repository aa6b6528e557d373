// Reads what a report is rendered from, as `killpoint run` left it in its output folder:
//   OUT/results.json                  the run's results (results/results.h)
//   OUT/<scenario-slug>/history.jsonl  every event of every trial (history/history_log.h)
// Only the events of counterexample trials are kept. Every error names the file, and a
// damaged or foreign file is an error value (BadInput), never a crash.
#pragma once

#include <filesystem>
#include <map>
#include <set>
#include <string_view>
#include <vector>

#include "reports/report_model.h"
#include "util/result.h"

namespace killpoint {

// Parses and checks a results file's text; `file` names it in errors.
Result<RunResults> ParseResults(std::string_view text, const std::string& file);

// The events of `trials` from a history journal. Lines of other trials are skipped without
// being parsed (a journal holds every trial of a run); a torn last line is ignored.
Result<std::map<int, std::vector<Event>>> ReadTrialEvents(const std::filesystem::path& log,
                                                          const std::set<int>& trials);

// Loads the counterexample trials' events of every scenario of `run` from `out_dir`. A missing
// journal is not an error: the scenario's timelines are left out and history_notes says why.
Status AttachHistories(RunReport& run, const std::filesystem::path& out_dir);

// A run's results and histories from its output folder, or from a results file (whose folder
// then holds the histories).
Result<RunReport> LoadRun(const std::filesystem::path& out_dir_or_results);

}  // namespace killpoint
