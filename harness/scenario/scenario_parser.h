// Reads and validates scenario files. Every error names the file, the field path and what
// was expected, e.g. "scenarios/x.json: retry.max_attempts: expected an integer >= 1, got -2".
#pragma once

#include <filesystem>
#include <string_view>
#include <vector>

#include "scenario/scenario.h"
#include "util/result.h"

namespace killpoint {

// Larger scenario texts are rejected before they are parsed.
inline constexpr size_t kMaxScenarioBytes = 4 << 20;

// Parses the JSON text of a scenario; `file` is used for messages and for {scenario_dir}.
// Never throws; every error is BadInput and one printable line: "FILE: FIELD.PATH: what".
Result<Scenario> ParseScenario(std::string_view text, const std::filesystem::path& file);

// Reads one scenario file.
Result<Scenario> LoadScenario(const std::filesystem::path& file);

// Each argument is a scenario file or a directory whose *.json files, in its subfolders too
// (sorted by path), are scenarios. Scenario names must be unique across the set.
Result<std::vector<Scenario>> LoadScenarios(const std::vector<std::filesystem::path>& paths);

}  // namespace killpoint
