#include "cli/run_command.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <thread>

#include "cli/diff_command.h"
#include "cli/exit_codes.h"
#include "cli/finish_run.h"
#include "cli/inspect.h"
#include "cli/paths.h"
#include "cli/report_outputs.h"
#include "cli/sandbox_options.h"
#include "proc/interrupt.h"
#include "proc/orphan_guard.h"
#include "reports/progress.h"
#include "reports/terminal.h"
#include "results/layout.h"
#include "results/output_lock.h"
#include "scenario/scenario_parser.h"
#include "suite/shard.h"
#include "suite/suite.h"
#include "util/atomic_file.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;

struct RunArgs {
  std::vector<std::string> inputs;
  int trials = 0;
  uint64_t seed = 1;
  std::string out = "killpoint-out";
  std::string html;
  std::string junit;
  std::string markdown;
  std::string bindir;
  SandboxArgs sandbox;
  std::optional<int> trial;
  bool keep = false;
  bool exhaustive = false;
  int limit = 1000;
  bool quiet = false;
  bool resume = false;
  std::string shard;     // "INDEX/COUNT"; empty: every trial
  int jobs = 0;          // 0: one per core
  std::string baseline;  // results of an earlier run to compare with (cli/diff_command.h)
  std::string fail_on = "worse";
};

void PrintKept(const Scenario& s, int trial, const std::vector<Verdict>& verdicts,
               const fs::path& box) {
  std::cout << s.name << " trial " << trial << ":\n";
  for (const auto& v : verdicts) std::cout << "  " << v << "\n";
  if (!box.empty()) PrintInspectCommands(std::cout, s, box);
}

bool IsMustHold(const Scenario& s, const std::string& invariant) {
  return std::find(s.must_hold.begin(), s.must_hold.end(), invariant) != s.must_hold.end();
}

// The progress line on a terminal's stderr, fed by the suite's callbacks.
std::unique_ptr<ProgressLine> StartProgress(const std::vector<Scenario>& scenarios,
                                            SuiteOptions& o) {
  auto progress =
      std::make_unique<ProgressLine>(std::cerr, TerminalColumns(STDERR_FILENO), SteadySeconds);
  for (const Scenario& s : scenarios) {
    if (o.exhaustive)
      progress->ExpectUnknown();
    else
      progress->Expect(PlannedTrials(s, o));
  }
  ProgressLine* line = progress.get();
  if (o.exhaustive)
    o.on_scenario = [line](const Scenario&, int trials) { line->Discovered(trials); };
  o.on_trial = [line](const Scenario& s, int, const std::vector<Verdict>& verdicts,
                      const fs::path&) {
    bool any = false, must = false;
    for (const Verdict& v : verdicts) {
      if (v.held) continue;
      any = true;
      must = must || IsMustHold(s, v.invariant);
    }
    line->OnTrial(any, must);
  };
  return progress;
}

ReportPaths OutputPaths(const RunArgs& a) {
  fs::path out(a.out);
  ReportFiles files = DefaultReportFiles(out);
  return {a.html.empty() ? files.html.string() : a.html,
          a.junit.empty() ? files.junit.string() : a.junit,
          a.markdown.empty() ? files.markdown.string() : a.markdown};
}

int Execute(const RunArgs& a) {
  std::vector<fs::path> inputs(a.inputs.begin(), a.inputs.end());
  auto scenarios = LoadScenarios(inputs);
  if (!scenarios) return Report(scenarios.error());
  if (!a.baseline.empty() && a.trial)
    return Report(Error::BadInput("--baseline and --trial cannot be combined"));
  auto baseline = BaselineOption(a.baseline, a.fail_on);
  if (!baseline) return Report(baseline.error());
  SuiteOptions o;
  o.trials = a.trials;
  o.seed = a.seed;
  o.only_trial = a.trial;
  o.out = a.out;
  o.bindir = a.bindir.empty() ? DefaultBindir() : fs::path(a.bindir);
  o.keep_sandboxes = a.keep;
  o.sandbox_root = a.sandbox.root;
  o.real_disk = a.sandbox.real_disk;
  auto intercept = InterceptionOf(a.sandbox.intercept);
  if (!intercept) return Report(intercept.error());
  o.intercept = intercept.value();
  o.exhaustive = a.exhaustive;
  o.exhaustive_limit = a.limit;
  o.jobs =
      a.jobs > 0 ? a.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (!a.shard.empty()) {
    auto shard = ParseShard(a.shard);
    if (!shard) return Report(shard.error());
    if (a.trial)
      return Report(
          Error::BadInput("--shard and --trial cannot be combined: --trial makes one trial"));
    o.shard = shard.value();
  }
  o.resume = a.resume;
  if (a.resume && a.trial)
    return Report(
        Error::BadInput("--resume and --trial cannot be combined: --trial makes one trial"));
  // Held until the reports are written: a second command into OUT exits 2 naming this one.
  auto lock = OutputLock::Take(a.out, "killpoint run");
  if (!lock) return Report(lock.error());
  // Before any thread: the guard is forked, and threads inherit the signal handling.
  if (Status s = StartOrphanGuard(); !s) return Report(s.error());
  InstallInterruptHandlers();
  std::unique_ptr<ProgressLine> progress;
  if (a.trial)
    o.on_trial = PrintKept;
  else if (!a.quiet && IsTerminal(STDERR_FILENO))
    progress = StartProgress(scenarios.value(), o);
  auto results = RunSuite(scenarios.value(), o);
  progress.reset();  // erases the line before anything else is printed
  if (!results) return Report(results.error());
  const BaselineGate gate{a.baseline, baseline.value() ? &*baseline.value() : nullptr,
                          ParseFailOn(a.fail_on).value()};
  auto report = RunReportOf(a.out, results.value(), gate);
  if (!report) return Report(report.error());
  ReportPaths paths = OutputPaths(a);
  if (Status s = WriteReports(report.value(), paths); !s) return Report(s.error());
  if (int signal = InterruptSignal(); signal != 0) {
    std::cerr << "killpoint: " << results.value().partial << ": partial results of "
              << results.value().Trials() << " finished trials in " << ResultsFile(a.out).string()
              << "; the same command with --resume finishes the run\n";
    return kExitSignalBase + signal;
  }
  if (!a.quiet) PrintRunSummary(report.value(), paths, a.out, "", a.trial);
  return VerdictExit(report.value(), gate.fail_on);
}

}  // namespace

void AddRunCommand(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* run = app.add_subcommand("run", "Run scenarios: kill, retry, check, report");
  run->add_option("scenarios", args->inputs, "Scenario files or folders of *.json")->required();
  run->add_option("--trials", args->trials,
                  "Trials per scenario (default: the scenario's, else 40)")
      ->check(CLI::Range(1, 10'000'000));
  run->add_option("--seed", args->seed, "Seed of the plans (same seed, same plans)");
  CLI::Option* out =
      run->add_option("--out", args->out, "Results folder (with --trial N: killpoint-trial-N)")
          ->capture_default_str();
  run->add_option("--html", args->html, "HTML report path (default: OUT/report.html)");
  run->add_option("--junit", args->junit, "JUnit XML path (default: OUT/junit.xml)");
  run->add_option("--markdown", args->markdown,
                  "Markdown summary path (default: OUT/summary.md); also appended to "
                  "$GITHUB_STEP_SUMMARY when set");
  run->add_option("--bindir", args->bindir,
                  "Folder of the reference jobs, {bindir} (default: killpoint's own)");
  run->add_option("--trial", args->trial, "Run only this trial (replay), printing its verdicts")
      ->check(CLI::NonNegativeNumber);
  AddSandboxOptions(run, &args->sandbox);
  run->add_flag("--keep", args->keep, "Keep the trials' sandboxes and print where they are");
  run->add_flag(
      "--exhaustive", args->exhaustive,
      "One trial per (crash point, before/after/mid, model) the job passes, not a sample");
  run->add_option("--limit", args->limit, "Most trials per scenario in --exhaustive")
      ->check(CLI::Range(1, 10'000'000))
      ->capture_default_str();
  run->add_option("--shard", args->shard,
                  "Make only shard INDEX of COUNT (INDEX/COUNT, such as 0/4): the trials t with "
                  "t % COUNT == INDEX; `killpoint merge` combines the shards (docs/sharding.md)");
  run->add_flag(
      "--resume", args->resume,
      "Continue the interrupted run in --out: keep its finished trials, run the rest (the same "
      "scenarios and options, or exit 2)");
  run->add_option("--jobs,-j", args->jobs,
                  "Trials run at once (default: one per core); results, verdicts and "
                  "counterexamples are the same whatever it is (docs/performance.md)")
      ->check(CLI::Range(1, 1024));
  run->add_option("--baseline", args->baseline,
                  "Compare with the results of an earlier run (its output folder or results.json) "
                  "and gate on what got worse (--fail-on); writes OUT/diff.json, and the summary "
                  "leads with the changes");
  run->add_option("--fail-on", args->fail_on, kFailOnHelp)->capture_default_str();
  run->add_flag("--quiet,-q", args->quiet, "Print nothing but errors (no table, no progress line)");
  run->callback([args, out, &exit_code] {
    // One trial (the replay line of a run) never writes over the run it came from: without
    // --out it gets a folder of its own, killpoint-trial-N.
    if (args->trial && out->count() == 0)
      args->out = "killpoint-trial-" + std::to_string(*args->trial);
    exit_code = Execute(*args);
  });
}

}  // namespace killpoint
