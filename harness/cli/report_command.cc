#include "cli/report_command.h"

#include <unistd.h>

#include <iostream>
#include <memory>

#include "cli/exit_codes.h"
#include "cli/finish_run.h"
#include "cli/report_outputs.h"
#include "reports/report_loader.h"
#include "reports/terminal.h"
#include "reports/terminal_table.h"

namespace killpoint {
namespace {

struct ReportArgs {
  std::vector<std::string> inputs;
  ReportPaths paths;
  bool quiet = false;
};

int Execute(const ReportArgs& a) {
  int to_stdout = (a.paths.html == "-") + (a.paths.junit == "-") + (a.paths.markdown == "-");
  if (to_stdout > 1)
    return Report(Error::BadInput("only one format can go to standard output ('-')"));
  ReportData combined;
  for (const auto& input : a.inputs) {
    auto run = LoadRun(input);
    if (!run) return Report(run.error());
    for (const std::string& note : run.value().history_notes) {
      if (!note.empty() && !a.quiet)
        std::cerr << "killpoint: note: " << note << "; its timelines are left out\n";
    }
    combined.runs.push_back(std::move(run.value()));
  }
  if (Status s = WriteReports(combined, a.paths); !s) return Report(s.error());
  // The table goes to standard output too, unless a format does.
  if (!a.quiet && to_stdout == 0) {
    bool color = ColorWanted(STDOUT_FILENO);
    for (const RunReport& run : combined.runs) std::cout << RenderTable(run.results, color);
  }
  return VerdictExit(combined);
}

}  // namespace

void AddReportCommand(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Render saved results as HTML, JUnit XML or Markdown, running nothing");
  cmd->add_option("results", args->inputs,
                  "Output folders of `killpoint run` (or their results.json files)")
      ->required();
  cmd->add_option("--html", args->paths.html,
                  "Write the self-contained HTML report here ('-': standard output)");
  cmd->add_option("--junit", args->paths.junit, "Write JUnit XML here ('-': standard output)");
  cmd->add_option("--markdown", args->paths.markdown,
                  "Write the Markdown summary here ('-': standard output); it is also appended to "
                  "$GITHUB_STEP_SUMMARY when that is set");
  cmd->add_flag("--quiet,-q", args->quiet, "Print nothing but errors");
  cmd->callback([args, &exit_code] { exit_code = Execute(*args); });
}

}  // namespace killpoint
