// `killpoint explore SCENARIO [--trials N] [--seconds S] [--seed S] [--invariant NAME]...`:
// property-based search for a schedule that breaks an invariant, shrunk to the smallest one.
#pragma once

#include <CLI/CLI.hpp>

namespace killpoint {

void AddExploreCommand(CLI::App& app, int& exit_code);

}  // namespace killpoint
