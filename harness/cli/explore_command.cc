#include "cli/explore_command.h"

#include <unistd.h>

#include <iostream>
#include <memory>

#include "cli/exit_codes.h"
#include "cli/paths.h"
#include "cli/sandbox_options.h"
#include "explore/explorer.h"
#include "history/event_registry.h"
#include "proc/interrupt.h"
#include "proc/orphan_guard.h"
#include "results/layout.h"
#include "results/output_lock.h"
#include "run/sandbox.h"
#include "scenario/scenario_parser.h"
#include "suite/suite.h"
#include "util/absolute_path.h"
#include "util/atomic_file.h"
#include "util/shell_quote.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;

struct ExploreArgs {
  std::string scenario;
  int trials = 0;
  int seconds = 0;
  int shrink_trials = 300;
  uint64_t seed = 1;
  std::vector<std::string> invariants;
  std::string out = "killpoint-out";
  std::string bindir;
  SandboxArgs sandbox;
  bool quiet = false;
  bool all_faults = false;
};

constexpr int kDefaultExploreTrials = 200;

// The command that searches the same schedules again. It names the interception backend when
// the search used one other than this machine's default (a scenario that needs none used none).
std::string SearchCommand(const ExploreArgs& a, int trials, const Scenario& s,
                          Interception intercept) {
  std::string cmd = "killpoint explore " + ShellQuote(AbsolutePath(a.scenario).string()) +
                    " --seed " + std::to_string(a.seed) + " --trials " + std::to_string(trials);
  for (const auto& i : a.invariants) cmd += " --invariant " + i;
  if (a.all_faults) cmd += " --all-faults";
  if (InterceptionUsed(s, intercept) != kNoInterception && intercept != DefaultInterception())
    cmd += " --intercept " + std::string(NameOf(intercept));
  return cmd;
}

// The servers the search started, when the scenario names any: one per kind, lent to every
// schedule, unless server kills made it start more.
std::string ServersLine(const ExploreOutcome& r) {
  if (r.servers_started == 0) return "";
  return "  servers started: " + std::to_string(r.servers_started) +
         " (lent to every schedule, reset at its start)\n";
}

int Attempts(const std::vector<Event>& events) {
  return static_cast<int>(std::count_if(events.begin(), events.end(), [](const Event& e) {
    return e.type == event::Spawn::kType && InstanceOf(e) != 2;
  }));
}

// A job that never ran (history/start_failure.h) is no verdict: said as `run` says it, exit 2.
int NeverRan(const Scenario& s, const ExploreOutcome& r) {
  ScenarioResult result;
  result.trials = r.trials;
  result.start_failures = r.start_failures;
  std::cerr << "killpoint: " << s.name << ": the job never ran: " << result.NeverRanExplanation()
            << "\n"
            << "  stderr of schedule " << r.start_failures.first_trial
            << ", attempt 1 (last lines):\n";
  for (const std::string& line : result.NeverRanStderr()) std::cerr << "    | " << line << "\n";
  return kExitBadInput;
}

int Execute(const ExploreArgs& a) {
  auto scenario = LoadScenario(a.scenario);
  if (!scenario) return Report(scenario.error());
  const Scenario& s = scenario.value();
  for (const auto& name : a.invariants) {
    bool known = std::count(s.must_hold.begin(), s.must_hold.end(), name) +
                 std::count(s.expected_violations.begin(), s.expected_violations.end(), name);
    if (!known) {
      return Report(Error::BadInput("--invariant " + name + ": not an invariant of " +
                                    s.file.string() + " (its must_hold and expected_violations)"));
    }
  }
  auto text = ReadFile(s.file);
  if (!text) return Report(text.error());
  auto lock = OutputLock::Take(a.out, "killpoint explore");
  if (!lock) return Report(lock.error());
  // Before any thread, as `killpoint run` (docs/hardening.md "The harness interrupted"): the
  // guard kills what the jobs left if the explorer dies, the handlers stop it cleanly.
  if (Status st = StartOrphanGuard(); !st) return Report(st.error());
  InstallInterruptHandlers();
  auto root = SandboxRoot::Make(a.sandbox.root, false, a.sandbox.Storage());
  if (!root) return Report(root.error());

  ExploreOptions o;
  o.seed = a.seed;
  o.trials = a.trials > 0 ? a.trials : (a.seconds > 0 ? 0 : kDefaultExploreTrials);
  if (a.seconds > 0) o.time_budget = std::chrono::seconds(a.seconds);
  o.shrink_trials = a.shrink_trials;
  o.invariants = a.invariants;
  o.all_faults = a.all_faults;
  o.trial = {a.bindir.empty() ? DefaultBindir() : fs::path(a.bindir), root.value()->path(), false};
  o.trial.real_fsync = a.sandbox.real_disk;
  auto intercept = InterceptionOf(a.sandbox.intercept);
  if (!intercept) return Report(intercept.error());
  o.trial.intercept = intercept.value();
  bool progress = !a.quiet && ::isatty(STDERR_FILENO);
  o.on_trial = [&](int n, bool shrinking, const std::string& summary, bool violated) {
    if (!a.quiet && violated && !shrinking)
      std::cout << "trial " << n << " violates: " << summary << "\n";
    if (progress)
      std::cerr << "\r" << (shrinking ? "shrinking, step " : "searching, trial ") << n << "   "
                << std::flush;
  };
  auto outcome = Explore(s, o);
  if (progress) std::cerr << "\r\033[K" << std::flush;
  if (!outcome) return Report(outcome.error());
  const ExploreOutcome& r = outcome.value();
  if (r.interrupted != 0 && !r.found) {
    std::cerr << "killpoint: explore interrupted by " << InterruptName(r.interrupted) << " after "
              << r.trials << " schedules: no violation found in them; search again: "
              << SearchCommand(a, a.trials > 0 ? a.trials : kDefaultExploreTrials, s,
                               o.trial.intercept)
              << "\n";
    return kExitSignalBase + r.interrupted;
  }
  if (r.NeverRan()) return NeverRan(s, r);
  if (!r.found) {
    if (!a.quiet) {
      std::cout << s.name << ": no violation in " << r.trials << " schedules (seed " << a.seed
                << ")\n"
                << ServersLine(r) << "  " << InterceptionLine(s, o.trial.intercept)
                << "  search again: " << SearchCommand(a, r.trials, s, o.trial.intercept) << "\n";
    }
    return kExitOk;
  }
  CounterexampleFile c = *r.found;
  c.scenario_text = text.value();
  fs::path file = ExploreCounterexampleFile(ScenarioDir(a.out, s.name), c.invariant);
  c.reproduce = "killpoint replay " + ShellQuote(AbsolutePath(file).string());
  if (r.interrupted != 0) {
    c.partial = std::string("interrupted by ") + InterruptName(r.interrupted) +
                " while shrinking, after " + std::to_string(r.shrink_trials) + " of at most " +
                std::to_string(a.shrink_trials) + " steps: it violates " + c.invariant +
                " but may not be the smallest schedule that does";
  }
  if (Status st = WriteCounterexample(file, c); !st) return Report(st.error());
  if (r.interrupted != 0) {
    std::cerr << "killpoint: explore " << c.partial << "; counterexample: " << file.string()
              << "; reproduce: " << c.reproduce << "\n";
    return kExitSignalBase + r.interrupted;
  }
  bool must_hold = std::count(s.must_hold.begin(), s.must_hold.end(), c.invariant) > 0;
  if (!a.quiet) {
    std::cout << s.name << ": " << c.invariant
              << (must_hold ? " VIOLATED (must hold)" : " violated (expected)") << "\n"
              << "  " << c.explanation << "\n"
              << "  found after " << r.trials << " schedules: " << r.first->plan.Summary() << "\n"
              << "  shrunk in " << r.shrink_trials << " trials to: " << c.plan.Summary() << " ("
              << Attempts(c.events) << " attempts)\n"
              << "  counterexample: " << file.string() << "\n"
              << "  reproduce: " << c.reproduce << "\n"
              << ServersLine(r) << "  " << InterceptionLine(s, o.trial.intercept)
              << "  search again: " << SearchCommand(a, r.trials, s, o.trial.intercept) << "\n";
  }
  return must_hold ? kExitViolation : kExitOk;
}

}  // namespace

void AddExploreCommand(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ExploreArgs>();
  CLI::App* cmd = app.add_subcommand(
      "explore", "Search fault schedules for a violation and shrink it to the smallest");
  cmd->add_option("scenario", args->scenario, "Scenario file")->required();
  cmd->add_option("--trials", args->trials,
                  "Schedules to try (default 200, or unbounded with --seconds)")
      ->check(CLI::Range(1, 100'000'000));
  cmd->add_option("--seconds", args->seconds,
                  "Wall-clock budget of the search (shrinking comes on top)")
      ->check(CLI::Range(1, 30 * 24 * 3600));
  cmd->add_option("--shrink-trials", args->shrink_trials, "Most trials spent shrinking")
      ->check(CLI::Range(0, 100'000))
      ->capture_default_str();
  cmd->add_option("--seed", args->seed, "Seed of the search (same seed, same schedules)");
  cmd->add_option("--invariant", args->invariants,
                  "Look only for this invariant's violation (repeatable)");
  cmd->add_option("--out", args->out,
                  "Results folder: counterexamples go to OUT/<scenario>/counterexamples/")
      ->capture_default_str();
  cmd->add_option("--bindir", args->bindir,
                  "Folder of the reference jobs, {bindir} (default: killpoint's own)");
  cmd->add_flag("--all-faults", args->all_faults,
                "Also draw the faults the scenario does not enable: duplicate and out-of-order "
                "firings, every downstream fault, its pauses, overlaps and bursts whatever their "
                "probability (default: only those it enables, as `run` does)");
  AddSandboxOptions(cmd, &args->sandbox);
  cmd->add_flag("--quiet,-q", args->quiet, "Print nothing but errors");
  cmd->callback([args, &exit_code] { exit_code = Execute(*args); });
}

}  // namespace killpoint
