// Escaping for text that came from a job (names, stderr, file contents): nothing a job
// prints can become markup or script in a report.
#pragma once

#include <string>
#include <string_view>

namespace killpoint {

// Escapes & < > " ' and replaces control characters and invalid UTF-8 with U+FFFD.
std::string HtmlEscape(std::string_view text);

}  // namespace killpoint
