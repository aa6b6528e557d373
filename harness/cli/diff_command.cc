#include "cli/diff_command.h"

#include <unistd.h>

#include <iostream>
#include <memory>

#include "cli/exit_codes.h"
#include "cli/finish_run.h"
#include "reports/diff_report.h"
#include "reports/markdown_report.h"
#include "reports/report_loader.h"
#include "reports/terminal.h"
#include "results/layout.h"
#include "util/atomic_file.h"

namespace killpoint {
namespace {

struct DiffArgs {
  std::string before, after;
  std::string json, markdown;
  std::string fail_on = "worse";
  bool quiet = false;
};

Status WriteOut(const std::string& path, const std::string& content) {
  if (path.empty()) return Ok();
  if (path == "-") {
    std::cout << content << std::flush;
    return Ok();
  }
  if (Status s = WriteFileAtomically(path, content); !s)
    return Error::BadInput("cannot write " + path + ": " + s.error().message);
  return Ok();
}

int Execute(const DiffArgs& a) {
  auto fail_on = ParseFailOn(a.fail_on);
  if (!fail_on) return Report(fail_on.error());
  if (a.json == "-" && a.markdown == "-")
    return Report(Error::BadInput("only one of --json and --markdown can go to standard output"));
  auto before = LoadBaseline(a.before);
  if (!before) return Report(before.error());
  auto after = LoadRun(a.after);
  if (!after) return Report(after.error());
  RunDiff diff = DiffRuns(before.value(), after.value().results);
  diff.before_source = a.before;
  diff.after_source = a.after;
  if (Status s = WriteOut(a.json, nlohmann::json(diff).dump(2) + "\n"); !s)
    return Report(s.error());
  ReportData report;
  report.runs.push_back(std::move(after.value()));
  report.baseline = std::move(diff);
  if (!a.markdown.empty()) {
    if (Status s = WriteOut(a.markdown, RenderMarkdown(report)); !s) return Report(s.error());
  }
  if (!a.quiet && a.json != "-" && a.markdown != "-")
    std::cout << RenderDiffText(*report.baseline, ColorWanted(STDOUT_FILENO));
  return VerdictExit(report, fail_on.value());
}

}  // namespace

Result<FailOn> ParseFailOn(const std::string& text) {
  if (text == "worse") return FailOn::kWorse;
  if (text == "any") return FailOn::kAny;
  if (text == "none") return FailOn::kNone;
  return Error::BadInput("--fail-on " + text + ": expected worse, any or none");
}

int DiffGate(const RunDiff& diff, const RunResults& after, FailOn fail_on) {
  if (!diff.never_ran.empty()) return kExitBadInput;
  switch (fail_on) {
    case FailOn::kAny:
      return GateExit(after.MustHoldViolated(), after.NotExercised(), after.NeverRan());
    case FailOn::kNone:
      return kExitOk;
    case FailOn::kWorse:
      break;
  }
  return GateExit(diff.Count(Change::kNewViolation) > 0,
                  diff.Count(Change::kNewlyNotExercised) > 0);
}

Result<RunResults> LoadBaseline(const std::string& path) {
  auto run = LoadRun(path);
  if (!run) return Error::BadInput("baseline " + run.error().message);
  return std::move(run.value().results);
}

Result<std::optional<RunResults>> BaselineOption(const std::string& path,
                                                 const std::string& fail_on) {
  if (path.empty()) return std::optional<RunResults>();
  if (auto f = ParseFailOn(fail_on); !f) return f.error();
  auto results = LoadBaseline(path);
  if (!results) return results.error();
  return std::optional<RunResults>(std::move(results.value()));
}

Result<RunDiff> CompareWithBaseline(const std::string& baseline_path, const RunResults& baseline,
                                    const RunResults& results, const std::string& out) {
  RunDiff diff = DiffRuns(baseline, results);
  diff.before_source = baseline_path;
  diff.after_source = out;
  if (Status s = WriteFileAtomically(DiffFile(out), nlohmann::json(diff).dump(2) + "\n"); !s)
    return s.error();
  return diff;
}

void AddDiffCommand(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<DiffArgs>();
  CLI::App* cmd = app.add_subcommand(
      "diff",
      "Compare a run with a baseline: new violations, fixed ones, newly not exercised or not "
      "demonstrated, per scenario and invariant; exits 1 on a new must-hold violation, 4 on an "
      "invariant newly not exercised, 2 when a job never ran or on bad input, else 0");
  cmd->add_option("baseline", args->before, "The baseline: an output folder or its results.json")
      ->required();
  cmd->add_option("new", args->after, "The new run: an output folder or its results.json")
      ->required();
  cmd->add_option("--json", args->json, "Write the diff as JSON here ('-': standard output)");
  cmd->add_option("--markdown", args->markdown,
                  "Write the new run's Markdown summary, led by the diff, here ('-': standard "
                  "output)");
  cmd->add_option("--fail-on", args->fail_on, kFailOnHelp)->capture_default_str();
  cmd->add_flag("--quiet,-q", args->quiet, "Print nothing but errors");
  cmd->callback([args, &exit_code] { exit_code = Execute(*args); });
}

}  // namespace killpoint
