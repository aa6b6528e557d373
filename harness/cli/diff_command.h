// `killpoint diff OLD NEW`: a run against its baseline (results/diff.h), each a results.json or
// an output folder; and the gate `killpoint run ... --baseline OLD` shares with it.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "results/diff.h"
#include "util/result.h"

namespace killpoint {

// What the gate fails on against a baseline (--fail-on).
enum class FailOn {
  kWorse,  // "worse" (default): a new must-hold violation (1), newly not exercised (4)
  kAny,    // "any": whatever fails the run alone (exit codes as without a baseline)
  kNone,   // "none": only a job that never ran or bad input
};
inline constexpr const char* kFailOnHelp =
    "With a baseline, what fails the gate: worse (default: a new must-hold violation, exit 1, "
    "or an invariant newly not exercised, exit 4; those violated in the baseline too do not "
    "fail), any (whatever fails the run alone), none (only a job that never ran, exit 2)";
Result<FailOn> ParseFailOn(const std::string& text);

// The exit code of a run against its baseline. A scenario of the new run whose job never ran is
// exit 2 whatever `fail_on` says: it has no verdict.
int DiffGate(const RunDiff& diff, const RunResults& after, FailOn fail_on);

// The results of a baseline: OUT or OUT/results.json; a clear error for anything else.
Result<RunResults> LoadBaseline(const std::string& path);

// `--baseline PATH --fail-on F` of `run` and `merge`: the baseline's results, read (and F
// checked) before any work; nullopt when PATH is empty.
Result<std::optional<RunResults>> BaselineOption(const std::string& path,
                                                 const std::string& fail_on);
// The run in `out` against its baseline, saved as OUT/diff.json.
Result<RunDiff> CompareWithBaseline(const std::string& baseline_path, const RunResults& baseline,
                                    const RunResults& results, const std::string& out);

void AddDiffCommand(CLI::App& app, int& exit_code);

}  // namespace killpoint
