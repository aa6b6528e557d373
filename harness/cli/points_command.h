// `killpoint points SCENARIO [--date D] [--json]`: runs the job once without faults, with the
// syscall shim, and lists every crash point it passed, named and syscall ones, in order.
#pragma once

#include <CLI/CLI.hpp>

namespace killpoint {

void AddPointsCommand(CLI::App& app, int& exit_code);

}  // namespace killpoint
