// A self-contained HTML page for design reviews: inline CSS and SVG, no script at all, nothing
// fetched from the network, so it opens from a file:// URL on a machine without a network.
// A Content-Security-Policy in the page forbids scripts and fetches outright, and everything
// that came from a job (names, stderr, file names, keys) is escaped (html_escape.h).
//
// The page: the verdict; the run metadata; a matrix of strategies x invariants
// (grouped by family, each row its scenario's own invariants); per scenario
// a heat map of crash points x invariants (violations out of trials) and every counterexample
// as a timeline (one lane per attempt) with its replay command.
#pragma once

#include <string>

#include "reports/report_model.h"
#include "results/results.h"

namespace killpoint {

std::string RenderHtml(const ReportData& report);

// The family a scenario's row is grouped under in the matrix: its name up to the first '/'
// ("publish/execute-then-mark" -> "publish"), else up to the first '-', else the name.
std::string MatrixFamily(const std::string& scenario);

// The page of one run, without timelines.
std::string RenderHtml(const RunResults& results);

}  // namespace killpoint
