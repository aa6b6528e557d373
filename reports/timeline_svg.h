// Draws a Timeline as inline SVG: one row per attempt, marks left to right in the order they
// happened, the virtual retry wait before each retry, and how each attempt ended. Every text
// that came from a job is escaped; each mark's details are in its <title> (a tooltip).
#pragma once

#include <string>

#include "reports/timeline.h"

namespace killpoint {

std::string RenderTimelineSvg(const Timeline& timeline);

// A legend of the mark shapes: one <span> per mark, each a small SVG and its name.
std::string RenderTimelineLegend();

}  // namespace killpoint
