#include "cli/merge_command.h"

#include <filesystem>
#include <memory>

#include "cli/diff_command.h"
#include "cli/exit_codes.h"
#include "cli/finish_run.h"
#include "cli/report_outputs.h"
#include "results/layout.h"
#include "results/output_lock.h"
#include "suite/merge.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;

struct MergeArgs {
  std::vector<std::string> shards;
  std::string out;
  bool quiet = false;
  std::string baseline;  // as `run --baseline` (cli/diff_command.h)
  std::string fail_on = "worse";
};

int Execute(const MergeArgs& a) {
  std::vector<fs::path> dirs(a.shards.begin(), a.shards.end());
  auto baseline = BaselineOption(a.baseline, a.fail_on);
  if (!baseline) return Report(baseline.error());
  auto lock = OutputLock::Take(a.out, "killpoint merge");
  if (!lock) return Report(lock.error());
  auto merged = MergeShards(dirs, a.out);
  if (!merged) return Report(merged.error());
  // The reports, as `killpoint run` writes them into its output folder.
  const BaselineGate gate{a.baseline, baseline.value() ? &*baseline.value() : nullptr,
                          ParseFailOn(a.fail_on).value()};
  auto report = RunReportOf(a.out, merged.value(), gate);
  if (!report) return Report(report.error());
  ReportFiles files = DefaultReportFiles(fs::path(a.out));
  ReportPaths paths{files.html.string(), files.junit.string(), files.markdown.string()};
  if (Status s = WriteReports(report.value(), paths); !s) return Report(s.error());
  if (!a.quiet) {
    PrintRunSummary(report.value(), paths, a.out,
                    "merged " + std::to_string(dirs.size()) + " shards\n");
  }
  return VerdictExit(report.value(), gate.fail_on);
}

}  // namespace

void AddMergeCommand(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<MergeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "merge", "Combine the output folders of `killpoint run --shard I/N` into one run");
  cmd->add_option("shards", args->shards,
                  "Output folders of the shards, every shard of the run once")
      ->required();
  cmd->add_option("--out", args->out, "Folder for the merged results, journals and reports")
      ->required();
  cmd->add_option("--baseline", args->baseline,
                  "Compare the merged run with an earlier run's results, as `run --baseline` "
                  "does (writes OUT/diff.json)");
  cmd->add_option("--fail-on", args->fail_on, kFailOnHelp)->capture_default_str();
  cmd->add_flag("--quiet,-q", args->quiet, "Print nothing but errors");
  cmd->callback([args, &exit_code] { exit_code = Execute(*args); });
}

}  // namespace killpoint
