// What a person types to look inside a kept sandbox: printed by `run --keep` and `replay --keep`.
#pragma once

#include <filesystem>
#include <ostream>

#include "scenario/scenario.h"

namespace killpoint {

// "  sandbox kept: ...", then the commands that show what the job left (reports/keep_hints.h):
// its files, its logs, each SQLite database's rows, the state file.
void PrintInspectCommands(std::ostream& out, const Scenario& s, const std::filesystem::path& box);

}  // namespace killpoint
