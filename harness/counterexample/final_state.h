// The final state a counterexample shows: what the checkers read once the trial was over.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <vector>

#include "history/event.h"
#include "scenario/scenario.h"

namespace killpoint {

// {"database": {"file", "tables": {name: [row objects]}} or {"file", "missing": true},
//  "state_file": {"file", "content"} or {"file", "missing": true},
//  "deliveries": {key: deliveries committed}, "alerts": {key: alerts raised}}
// "database" (check.db) only when the file exists or an invariant of the scenario reads it;
// "state_file" only when the scenario names one (check.state_file).
// Rows are cut at 200 per table and the state file at 64 KiB ("truncated": true says so).
// Never fails: what cannot be read is described instead ("error": "...").
nlohmann::json CaptureFinalState(const Scenario& scenario, const std::filesystem::path& workdir,
                                 const std::vector<Event>& events);

}  // namespace killpoint
