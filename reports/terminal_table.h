// The final table printed at the end of a run: one block per scenario, one line per
// invariant, readable at 80 columns; colored only when asked (a terminal, NO_COLOR unset).
#pragma once

#include <optional>
#include <string>

#include "results/results.h"

namespace killpoint {

// `only_trial`: the run made this one trial of each scenario (`run --trial N`).
std::string RenderTable(const RunResults& results, bool color,
                        std::optional<int> only_trial = std::nullopt);

}  // namespace killpoint
