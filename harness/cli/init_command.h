// `killpoint init [--out FILE] [--force] -- COMMAND...`: runs the job once under the syscall
// shim and the downstream, lists what it touched and writes a starting scenario whose fields
// are explained in the terminal (init/scenario_draft.h). A new user's first run is `init`, then
// `run`.
#pragma once

#include <CLI/CLI.hpp>

namespace killpoint {

void AddInitCommand(CLI::App& app, int& exit_code);

}  // namespace killpoint
