// `killpoint replay COUNTEREXAMPLE [--keep]`: runs a recorded schedule again and prints its
// timeline, its verdicts and whether the same events happened.
#pragma once

#include <CLI/CLI.hpp>

namespace killpoint {

void AddReplayCommand(CLI::App& app, int& exit_code);

}  // namespace killpoint
