// The final table printed at the end of a run: one block per scenario, one line per
// invariant, readable at 80 columns; colored only when asked (a terminal, NO_COLOR unset).
#pragma once

#include <string>

#include "reports/results.h"

namespace killpoint {

std::string RenderTable(const RunResults& results, bool color);

}  // namespace killpoint
