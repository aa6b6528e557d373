// A run against its baseline (results/diff.h) for a person at a terminal and for the Markdown
// summary: what got worse first, then what got better, the unchanged only counted.
#pragma once

#include <string>

#include "results/diff.h"

namespace killpoint {

// "1 new violation, 2 fixed, 40 unchanged; 1 scenario added": every kind that occurs.
std::string DiffCounts(const RunDiff& d);

// The terminal's block: a line per change (a new violation with its replay command), the
// counts, and the verdict against the baseline.
std::string RenderDiffText(const RunDiff& d, bool color);

// The Markdown summary's leading section: a table of the changes, worse first; the invariants
// still violated folded.
std::string RenderDiffMarkdown(const RunDiff& d);

// The HTML report's leading section, as the Markdown's: the verdict against the baseline, a
// table of the changes, worse first, the new violations' replay commands, the invariants still
// failing folded. Every name from a job escaped.
std::string RenderDiffHtml(const RunDiff& d);

}  // namespace killpoint
