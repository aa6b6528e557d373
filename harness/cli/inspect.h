// What a person types to look inside a kept sandbox: printed by `run --keep` and `replay --keep`.
#pragma once

#include <filesystem>
#include <ostream>

#include "scenario/scenario.h"

namespace killpoint {

// "  sandbox kept: ...", then the commands that show the job's files, its logs, the database's
// rows and the state file.
void PrintInspectCommands(std::ostream& out, const Scenario& s, const std::filesystem::path& box);

}  // namespace killpoint
