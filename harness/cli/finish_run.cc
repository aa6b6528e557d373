#include "cli/finish_run.h"

#include <unistd.h>

#include <iostream>

#include "cli/exit_codes.h"
#include "reports/diff_report.h"
#include "reports/report_loader.h"
#include "reports/terminal.h"
#include "reports/terminal_table.h"
#include "results/layout.h"

namespace killpoint {

Result<ReportData> RunReportOf(const std::string& out, const RunResults& results,
                               const BaselineGate& gate) {
  RunReport run{out, results, {}, {}};  // named as `killpoint report OUT` names it
  if (Status s = AttachHistories(run, out); !s) return s.error();
  ReportData report;
  report.runs.push_back(std::move(run));
  if (gate.results && results.partial.empty()) {
    auto diff = CompareWithBaseline(gate.path, *gate.results, results, out);
    if (!diff) return diff.error();
    report.baseline = std::move(diff.value());
  }
  return report;
}

void PrintRunSummary(const ReportData& report, const ReportPaths& paths, const std::string& out,
                     std::string_view header, std::optional<int> only_trial) {
  const bool color = ColorWanted(STDOUT_FILENO);
  for (const RunReport& run : report.runs) std::cout << RenderTable(run.results, color, only_trial);
  std::cout << header << "results: " << ResultsFile(out).string() << "\nreport: " << paths.html
            << "\njunit: " << paths.junit << "\nsummary: " << paths.markdown << "\n";
  if (report.baseline) {
    std::cout << RenderDiffText(*report.baseline, color) << "diff: " << DiffFile(out).string()
              << "\n";
  }
}

int VerdictExit(const ReportData& report, FailOn fail_on) {
  if (report.baseline && report.runs.size() == 1)
    return DiffGate(*report.baseline, report.runs.front().results, fail_on);
  return GateExit(report.MustHoldViolated(), report.NotExercised(), report.NeverRan());
}

}  // namespace killpoint
