// A self-contained HTML page for design reviews: inline CSS, no script, nothing fetched from
// the network, so it opens from a file:// URL anywhere. Everything that came from a job is
// escaped (html_escape.h).
#pragma once

#include <string>

#include "reports/results.h"

namespace killpoint {

std::string RenderHtml(const RunResults& results);

}  // namespace killpoint
