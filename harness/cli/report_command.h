// `killpoint report OUT_DIR... [--html F] [--junit F] [--markdown F]`: renders saved results
// (each OUT_DIR's results.json, and its history journals for the counterexamples' timelines)
// without running anything. Several OUT_DIRs are combined into one report. Exits as `run`
// does: 0 when every must-hold invariant held, 1 when one was violated, 2 on bad input.
#pragma once

#include <CLI/CLI.hpp>

namespace killpoint {

void AddReportCommand(CLI::App& app, int& exit_code);

}  // namespace killpoint
