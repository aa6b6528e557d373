// killpoint: a table of subcommands, each in its own file.
#include <CLI/CLI.hpp>

#include "cli/exit_codes.h"
#include "cli/explore_command.h"
#include "cli/merge_command.h"
#include "cli/points_command.h"
#include "cli/replay_command.h"
#include "cli/report_command.h"
#include "cli/run_command.h"
#include "run/process_tag.h"

int main(int argc, char** argv) {
  CLI::App app{"killpoint: kill scheduled jobs at chosen points, retry them, check invariants"};
  app.set_version_flag("--version", KILLPOINT_VERSION);
  app.require_subcommand(1);
  int exit_code = killpoint::kExitOk;
  killpoint::AddRunCommand(app, exit_code);
  killpoint::AddPointsCommand(app, exit_code);
  killpoint::AddExploreCommand(app, exit_code);
  killpoint::AddReplayCommand(app, exit_code);
  killpoint::AddReportCommand(app, exit_code);
  killpoint::AddMergeCommand(app, exit_code);
  // Every orphan of a job becomes the harness's child, whatever it did to its environment and
  // session (`env -i setsid cmd &`): killed at the end of its attempt, or at the latest here.
  killpoint::BecomeSubreaper();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? killpoint::kExitOk : killpoint::kExitBadInput;
  }
  killpoint::KillAdoptedOrphans();
  return exit_code;
}
