// `killpoint run SCENARIO_OR_DIR... [--trials N] [--seed S] [--out DIR] [--trial N --keep]`
#pragma once

#include <CLI/CLI.hpp>

namespace killpoint {

// Adds the subcommand; `exit_code` is set when it ran.
void AddRunCommand(CLI::App& app, int& exit_code);

}  // namespace killpoint
