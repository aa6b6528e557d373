// `killpoint merge SHARD_OUT... --out DIR`: the shards of a `killpoint run --shard I/N` folded
// into one run's results and reports (suite/merge.h).
#pragma once

#include <CLI/CLI.hpp>

namespace killpoint {

// Registers the subcommand; its callback stores the exit code in `exit_code`.
void AddMergeCommand(CLI::App& app, int& exit_code);

}  // namespace killpoint
