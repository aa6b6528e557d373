#include "cli/run_command.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/exit_codes.h"
#include "cli/paths.h"
#include "reports/html_report.h"
#include "reports/terminal_table.h"
#include "scenario/scenario_parser.h"
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
  std::string bindir;
  std::string sandbox_root;
  std::optional<int> trial;
  bool keep = false;
  bool exhaustive = false;
  int limit = 1000;
  bool quiet = false;
};

void PrintKept(const Scenario& s, int trial, const std::vector<Verdict>& verdicts, const fs::path& box) {
  std::cout << s.name << " trial " << trial << ":\n";
  for (const auto& v : verdicts) std::cout << "  " << v << "\n";
  if (box.empty()) return;
  fs::path work = box / "work";
  std::cout << "  sandbox kept: " << box.string() << "\n"
            << "  inspect: ls -la " << work.string() << "; ls " << (box / "logs").string() << "\n"
            << "           sqlite3 " << (work / s.check.db).string() << " 'SELECT * FROM daily_settlement'\n"
            << "           cat " << (work / s.check.state_file).string() << "\n";
}

int Execute(const RunArgs& a) {
  std::vector<fs::path> inputs(a.inputs.begin(), a.inputs.end());
  auto scenarios = LoadScenarios(inputs);
  if (!scenarios) return Report(scenarios.error());
  SuiteOptions o;
  o.trials = a.trials;
  o.seed = a.seed;
  o.only_trial = a.trial;
  o.out = a.out;
  o.bindir = a.bindir.empty() ? DefaultBindir() : fs::path(a.bindir);
  o.keep_sandboxes = a.keep;
  o.sandbox_root = a.sandbox_root;
  o.exhaustive = a.exhaustive;
  o.exhaustive_limit = a.limit;
  if (a.trial) o.on_trial = PrintKept;
  auto results = RunSuite(scenarios.value(), o);
  if (!results) return Report(results.error());
  fs::path html = a.html.empty() ? fs::path(a.out) / "report.html" : fs::path(a.html);
  if (Status s = WriteFileAtomically(html, RenderHtml(results.value())); !s) return Report(s.error());
  if (!a.quiet) {
    bool color = ::isatty(STDOUT_FILENO) && !std::getenv("NO_COLOR");
    std::cout << RenderTable(results.value(), color);
    std::cout << "results: " << (fs::path(a.out) / "results.json").string() << "\nreport: " << html.string() << "\n";
  }
  return results.value().MustHoldViolated() ? kExitViolation : kExitOk;
}

}  // namespace

void AddRunCommand(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* run = app.add_subcommand("run", "Run scenarios: kill, retry, check, report");
  run->add_option("scenarios", args->inputs, "Scenario files or folders of *.json")->required();
  run->add_option("--trials", args->trials, "Trials per scenario (default: the scenario's, else 40)")
      ->check(CLI::Range(1, 10'000'000));
  run->add_option("--seed", args->seed, "Seed of the plans (same seed, same plans)");
  run->add_option("--out", args->out, "Results folder")->capture_default_str();
  run->add_option("--html", args->html, "HTML report path (default: OUT/report.html)");
  run->add_option("--bindir", args->bindir, "Folder of the reference jobs, {bindir} (default: killpoint's own)");
  run->add_option("--trial", args->trial, "Run only this trial (replay), printing its verdicts")
      ->check(CLI::NonNegativeNumber);
  run->add_option("--sandbox-root", args->sandbox_root,
                  "Folder for the trials' sandboxes (default: a new one in $TMPDIR); a RAM-backed one "
                  "such as /dev/shm makes the jobs' real fsyncs free, the models still decide what survives");
  run->add_flag("--keep", args->keep, "Keep the trials' sandboxes and print where they are");
  run->add_flag("--exhaustive", args->exhaustive,
                "One trial per (crash point, before/after/mid, model) the job passes, not a sample");
  run->add_option("--limit", args->limit, "Most trials per scenario in --exhaustive")
      ->check(CLI::Range(1, 10'000'000))
      ->capture_default_str();
  run->add_flag("--quiet,-q", args->quiet, "Print nothing but errors");
  run->callback([args, &exit_code] { exit_code = Execute(*args); });
}

}  // namespace killpoint
