// A Markdown summary for CI pages (GitHub's job summary, a pull-request comment): the verdict,
// a table of every scenario's invariants, and the top counterexamples with their replay
// commands. Text from jobs is escaped so that it renders as text: no links, no HTML, no
// broken tables.
#pragma once

#include <string>

#include "reports/report_model.h"

namespace killpoint {

// Counterexamples listed at most; the HTML report has them all.
inline constexpr size_t kMarkdownTopCounterexamples = 10;

std::string RenderMarkdown(const ReportData& report);

// Escapes text for a Markdown paragraph or table cell: one line, markup characters escaped.
std::string MarkdownEscape(const std::string& text);

// Text as one inline code span: nothing escaped inside (GitHub shows a backslash there as
// written), a fence of backticks longer than any run of them in the text, one line.
std::string MarkdownCode(const std::string& text);

// Text as a fenced code block of `language` ("sh"), each line after `indent` (inside a list
// item: "  "), the fence of backticks longer than any run of them in the text, so that nothing
// inside can close it; ends with a newline.
std::string MarkdownCodeBlock(const std::string& text, const std::string& language = "sh",
                              const std::string& indent = "");

}  // namespace killpoint
