// A violation's fix hint (Counterexample::hint) in every format, escaped as the rest.
#include <gtest/gtest.h>

#include "report_fixture.h"
#include "reports/html_report.h"
#include "reports/junit_report.h"
#include "reports/markdown_report.h"
#include "reports/terminal_table.h"

namespace killpoint {
namespace {

using testing::HostileReport;

constexpr const char* kHintStart = "its folder was never fsync";

TEST(FixHintReport, EveryFormatNamesTheLikelyCause) {
  ReportData report = HostileReport();
  std::string table = RenderTable(report.runs[0].results, false);
  EXPECT_NE(table.find(std::string("    likely cause: ") + kHintStart), std::string::npos) << table;
  std::string md = RenderMarkdown(report);
  EXPECT_NE(md.find(std::string("Likely cause: ") + kHintStart), std::string::npos) << md;
  std::string html = RenderHtml(report);
  EXPECT_NE(html.find(std::string("<b>Likely cause:</b> ") + kHintStart), std::string::npos);
  std::string junit = RenderJunit(report);
  EXPECT_NE(junit.find(std::string("likely cause: ") + kHintStart), std::string::npos) << junit;
  for (const std::string* out : {&md, &html, &junit})
    EXPECT_EQ(out->find("<script>"), std::string::npos);
}

TEST(FixHintReport, NoHintNoLine) {
  ReportData report = HostileReport();
  for (auto& s : report.runs[0].results.scenarios) {
    for (auto& r : s.invariants) {
      for (auto& c : r.examples) c.hint.clear();
    }
  }
  EXPECT_EQ(RenderTable(report.runs[0].results, false).find("likely cause"), std::string::npos);
  EXPECT_EQ(RenderMarkdown(report).find("Likely cause"), std::string::npos);
  EXPECT_EQ(RenderHtml(report).find("Likely cause"), std::string::npos);
  EXPECT_EQ(RenderJunit(report).find("likely cause"), std::string::npos);
}

}  // namespace
}  // namespace killpoint
