// killpoint: a table of subcommands, each in its own file.
#include <CLI/CLI.hpp>

#include "cli/diff_command.h"
#include "cli/exit_codes.h"
#include "cli/explore_command.h"
#include "cli/help_format.h"
#include "cli/init_command.h"
#include "cli/merge_command.h"
#include "cli/paths.h"
#include "cli/points_command.h"
#include "cli/replay_command.h"
#include "cli/report_command.h"
#include "cli/run_command.h"
#include "proc/process_tag.h"
#include "util/closest_name.h"

namespace killpoint {
namespace {

constexpr const char* kExitCodes =
    "Exit codes:\n"
    "  0    every must-hold invariant held (replay: the invariant held)\n"
    "  1    a must-hold invariant was violated (replay: violated again)\n"
    "  2    bad usage, a bad scenario, or a job that never ran: every attempt of a scenario\n"
    "       failed the same way before any crash point (its stderr is shown)\n"
    "  3    the harness itself failed\n"
    "  4    nothing violated, but a scenario's planned kills never fired, or its job made a\n"
    "       call the supervisor refuses (io_uring): not exercised\n"
    "  130  interrupted by SIGINT (143: SIGTERM); partial results written, --resume finishes\n"
    "With a baseline (run --baseline OLD, diff OLD NEW), by default (--fail-on worse) 1 and 4\n"
    "  only for what got worse: a new must-hold violation (1), an invariant newly not\n"
    "  exercised (4); --fail-on any: as without a baseline; --fail-on none: 0 but for 2\n";

// Where the docs are: beside an installed killpoint, else in the source tree.
std::string DocsFooter() {
  std::filesystem::path installed = InstalledDocsDir();
  std::string where = installed.empty() ? "README.md and docs/ in the source tree"
                                        : installed.string() + "/ (README.md, docs/)";
  return std::string(kExitCodes) + "docs: " + where +
         "; docs/writing-a-job.md to start, docs/scenarios.md for scenario files";
}

// The subcommands' names, `help` left out.
std::vector<std::string> SubcommandNames(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_name() != "help") names.push_back(sub->get_name());
  }
  return names;
}

// `killpoint help [SUBCOMMAND]`: what `--help` prints.
void AddHelpCommand(CLI::App& app) {
  auto* help =
      app.add_subcommand("help", "Print this help, or a subcommand's (killpoint help run)");
  static std::string name;  // the app keeps a reference: it lives as long as the process
  help->add_option("subcommand", name, "The subcommand to explain");
  help->callback([&app] {
    if (name.empty()) {  // killpoint's own help (app.help() and CallForHelp give help's)
      std::cout << app.get_formatter()->make_help(&app, "killpoint", CLI::AppFormatMode::Normal);
      return;
    }
    CLI::App* sub = nullptr;
    try {
      sub = app.get_subcommand(name);
    } catch (const CLI::OptionNotFound&) {
      std::string closest = ClosestName(name, SubcommandNames(app));
      throw CLI::ValidationError("help",
                                 "no subcommand '" + name + "'" +
                                     (closest.empty() ? "" : ": did you mean '" + closest + "'?"));
    }
    std::cout << sub->help("killpoint");
  });
}

// The options `sub` knows, long names with their dashes.
std::vector<std::string> LongOptions(const CLI::App& sub) {
  std::vector<std::string> names;
  for (const CLI::Option* o : sub.get_options()) {
    for (const std::string& n : o->get_lnames()) names.push_back("--" + n);
  }
  return names;
}

// "The following argument was not expected: --trails", with the option it probably is.
int UnexpectedArguments(CLI::App& app, const CLI::ExtrasError& e) {
  CLI::App* sub = app.get_subcommands().empty() ? &app : app.get_subcommands().front();
  std::string hints;
  for (const std::string& extra : sub->remaining()) {
    std::string typed = extra.substr(0, extra.find('='));
    if (typed.rfind("--", 0) != 0) continue;
    std::string closest = ClosestName(typed, LongOptions(*sub));
    if (!closest.empty())
      hints += "killpoint: " + typed + " is no option of " + sub->get_name() + ": did you mean " +
               closest + "?\n";
  }
  std::cerr << hints;
  return app.exit(e);
}

// `killpoint rnu ...`: "did you mean run?" when the first argument is a subcommand mistyped.
void HintSubcommand(const CLI::App& app, const std::string& first) {
  if (!app.get_subcommands().empty() || first.empty() || first[0] == '-') return;
  std::string closest = ClosestName(first, SubcommandNames(app));
  if (!closest.empty())
    std::cerr << "killpoint: " << first << " is no subcommand: did you mean " << closest << "?\n";
}

}  // namespace
}  // namespace killpoint

int main(int argc, char** argv) {
  CLI::App app{"killpoint: kill scheduled jobs at chosen points, retry them, check invariants",
               "killpoint"};
  // Before the subcommands: each takes its parent's formatter when it is added.
  app.formatter(std::make_shared<killpoint::UsageFirstFormatter>());
  app.set_version_flag("--version", std::string("killpoint ") + KILLPOINT_VERSION);
  app.require_subcommand(1);
  app.footer(killpoint::DocsFooter());
  int exit_code = killpoint::kExitOk;
  killpoint::AddInitCommand(app, exit_code);
  killpoint::AddRunCommand(app, exit_code);
  killpoint::AddPointsCommand(app, exit_code);
  killpoint::AddExploreCommand(app, exit_code);
  killpoint::AddReplayCommand(app, exit_code);
  killpoint::AddReportCommand(app, exit_code);
  killpoint::AddMergeCommand(app, exit_code);
  killpoint::AddDiffCommand(app, exit_code);
  killpoint::AddHelpCommand(app);
  // Every orphan of a job becomes the harness's child, whatever it did to its environment and
  // session (`env -i setsid cmd &`): killed at the end of its attempt, or at the latest here.
  killpoint::BecomeSubreaper();
  if (argc < 2) {  // no subcommand: the help, as `killpoint help` prints it, and exit 2
    std::cerr << app.help();
    return killpoint::kExitBadInput;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ExtrasError& e) {
    return killpoint::UnexpectedArguments(app, e) == 0 ? killpoint::kExitOk
                                                       : killpoint::kExitBadInput;
  } catch (const CLI::ParseError& e) {
    killpoint::HintSubcommand(app, argv[1]);
    int rc = app.exit(e);
    return rc == 0 ? killpoint::kExitOk : killpoint::kExitBadInput;
  }
  killpoint::KillAdoptedOrphans();
  return exit_code;
}
