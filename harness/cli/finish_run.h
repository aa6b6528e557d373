// How every command that ends in a verdict ends (run, merge, report, diff): the report of the
// run's output folder with its histories, its diff against the baseline when there is one, the
// files each format goes to, the summary on standard output, and the exit code. One path, so
// that the four cannot drift apart on what a baseline, a partial run or a job that never ran
// does to the exit code (docs/architecture.md, "Where to add").
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "cli/diff_command.h"
#include "cli/report_outputs.h"
#include "reports/report_model.h"
#include "results/results.h"
#include "util/result.h"

namespace killpoint {

// What a run's ending is compared with: `--baseline PATH --fail-on F` (BaselineOption's).
struct BaselineGate {
  std::string path;                     // empty: no baseline
  const RunResults* results = nullptr;  // the baseline's, read before the run
  FailOn fail_on = FailOn::kWorse;
};

// The report of the run whose output folder is `out` and whose results are `results`: its
// histories attached, and, with a baseline, the diff (also saved as OUT/diff.json). A partial run
// (interrupted) is not compared: what did not run would read as newly not exercised.
Result<ReportData> RunReportOf(const std::string& out, const RunResults& results,
                               const BaselineGate& gate);

// What run and merge print once the reports are written: the table (`only_trial`: `run --trial`'s
// form), `header` ("merged 3 shards\n"; may be empty), the files and, with a baseline, the diff.
void PrintRunSummary(const ReportData& report, const ReportPaths& paths, const std::string& out,
                     std::string_view header, std::optional<int> only_trial = std::nullopt);

// The exit code of a report: against its baseline, DiffGate's by `fail_on`; alone, GateExit's
// over every run of it (docs/ci-integration.md, "Exit codes").
int VerdictExit(const ReportData& report, FailOn fail_on = FailOn::kWorse);

}  // namespace killpoint
