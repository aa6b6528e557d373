#include "cli/report_outputs.h"

#include <cstdlib>
#include <iostream>

#include "reports/html_report.h"
#include "reports/junit_report.h"
#include "reports/markdown_report.h"
#include "util/atomic_file.h"

namespace killpoint {
namespace {

Status Write(const std::string& path, const std::string& content) {
  if (path.empty()) return Ok();
  if (path == "-") {
    std::cout << content << std::flush;
    return Ok();
  }
  if (Status s = WriteFileAtomically(path, content); !s) {
    return Error::BadInput("cannot write " + path + ": " + s.error().message);
  }
  return Ok();
}

}  // namespace

Status WriteReports(const ReportData& report, const ReportPaths& paths) {
  if (Status s = Write(paths.html, RenderHtml(report)); !s) return s;
  if (Status s = Write(paths.junit, RenderJunit(report)); !s) return s;
  std::string markdown = RenderMarkdown(report);
  if (Status s = Write(paths.markdown, markdown); !s) return s;
  const char* summary = std::getenv("GITHUB_STEP_SUMMARY");
  if (summary && *summary) {
    if (Status s = AppendDurably(summary, markdown + "\n"); !s) {
      return Error::BadInput("GITHUB_STEP_SUMMARY=" + std::string(summary) +
                             ": cannot append: " + s.error().message);
    }
  }
  return Ok();
}

}  // namespace killpoint
