#include "cli/replay_command.h"

#include <iostream>
#include <memory>

#include "cli/exit_codes.h"
#include "cli/inspect.h"
#include "cli/paths.h"
#include "cli/sandbox_options.h"
#include "proc/interrupt.h"
#include "proc/orphan_guard.h"
#include "replay/replay.h"
#include "reports/text_timeline.h"
#include "run/sandbox.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;

struct ReplayArgs {
  std::string file;
  bool keep = false;
  std::string bindir;
  SandboxArgs sandbox;
  bool quiet = false;
};

int Execute(const ReplayArgs& a) {
  auto c = ReadCounterexample(a.file);
  if (!c) return Report(c.error());
  if (!c.value().partial.empty()) std::cerr << "killpoint: note: " << c.value().partial << "\n";
  // Before any thread, as `killpoint run` (docs/hardening.md "The harness interrupted").
  if (Status st = StartOrphanGuard(); !st) return Report(st.error());
  InstallInterruptHandlers();
  auto root = SandboxRoot::Make(a.sandbox.root, a.keep, a.sandbox.Storage());
  if (!root) return Report(root.error());
  TrialOptions o{a.bindir.empty() ? DefaultBindir() : fs::path(a.bindir), root.value()->path(),
                 a.keep};
  o.real_fsync = a.sandbox.real_disk;
  auto intercept = InterceptionOf(a.sandbox.intercept);
  if (!intercept) return Report(intercept.error());
  o.intercept = intercept.value();
  auto r = Replay(c.value(), o);
  if (int signal = InterruptSignal(); !r && signal != 0) {
    // The attempt in flight was killed with its group and tagged processes; the trial's
    // sandbox goes with the Result (unless --keep), the temporary root with `root`.
    std::cerr << "killpoint: replay interrupted by " << InterruptName(signal)
              << ": the attempt in flight was killed, nothing was compared\n";
    return kExitSignalBase + signal;
  }
  if (!r) return Report(r.error());
  const ReplayOutcome& out = r.value();
  if (!out.warning.empty()) std::cerr << "killpoint: warning: " << out.warning << "\n";
  if (!a.quiet) {
    std::cout << out.scenario.name << ": " << c.value().plan.Summary() << "\n\n"
              << RenderTextTimeline(
                     out.events,
                     TimelineOptionsFor(out.scenario.must_hold, out.scenario.expected_violations))
              << "\n";
    for (const Verdict& v : out.verdicts) std::cout << "  " << v << "\n";
    std::cout << "\n"
              << c.value().invariant << (out.violated ? ": violated again" : ": held this time")
              << "\n";
    if (!out.first_difference) {
      std::cout << "history: the same events in the same order as recorded (" << out.events.size()
                << " events)\n";
    } else {
      size_t i = *out.first_difference;
      auto now = Fingerprint(out.events), then = Fingerprint(c.value().events);
      std::cout << "history: differs from the recorded one at event " << i << ":\n"
                << "  recorded: " << (i < then.size() ? then[i].dump() : "(nothing)") << "\n"
                << "  now:      " << (i < now.size() ? now[i].dump() : "(nothing)") << "\n";
    }
    std::cout << InterceptionLine(out.scenario, o.intercept);
    if (a.keep) PrintInspectCommands(std::cout, out.scenario, out.sandbox);
  }
  return out.violated ? kExitViolation : kExitOk;
}

}  // namespace

void AddReplayCommand(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ReplayArgs>();
  CLI::App* cmd = app.add_subcommand("replay",
                                     "Run a counterexample's schedule again; exit 1 if its "
                                     "invariant is violated again, 0 if it held");
  cmd->add_option("counterexample", args->file,
                  "A counterexample file (killpoint run or explore wrote it)")
      ->required();
  cmd->add_flag("--keep", args->keep, "Keep the sandbox and print how to look inside");
  cmd->add_option("--bindir", args->bindir,
                  "Folder of the reference jobs, {bindir} (default: killpoint's own)");
  AddSandboxOptions(cmd, &args->sandbox);
  cmd->add_flag("--quiet,-q", args->quiet, "Print nothing but errors");
  cmd->callback([args, &exit_code] { exit_code = Execute(*args); });
}

}  // namespace killpoint
