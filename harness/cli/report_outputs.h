// Writing the report formats, shared by `killpoint run` and `killpoint report`.
#pragma once

#include <string>

#include "reports/report_model.h"
#include "util/result.h"

namespace killpoint {

// Where each format goes; an empty path: not wanted; "-": standard output.
struct ReportPaths {
  std::string html;
  std::string junit;
  std::string markdown;
};

// Writes each wanted format (files are replaced atomically), and appends the Markdown summary
// to the file GITHUB_STEP_SUMMARY names when that variable is set, as GitHub Actions expects.
Status WriteReports(const ReportData& report, const ReportPaths& paths);

}  // namespace killpoint
