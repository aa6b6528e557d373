// Escaping for text that came from a job (names, stderr, file contents): nothing a job
// prints can become markup or script in a report.
#pragma once

#include <string>
#include <string_view>

namespace killpoint {

// Replaces control characters (but newline and tab) and invalid UTF-8 with U+FFFD, and
// escapes nothing else: for plain text outputs (Markdown code blocks, terminals).
std::string SanitizeText(std::string_view text);

// SanitizeText, then escapes & < > " '. The result is valid HTML text and attribute content,
// and valid XML 1.0 character data.
std::string HtmlEscape(std::string_view text);

namespace html {
// The renderers escape on nearly every line: `using html::E;` there.
inline std::string E(std::string_view text) { return HtmlEscape(text); }
}  // namespace html

}  // namespace killpoint
