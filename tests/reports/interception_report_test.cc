// The interception backend in every format (docs/reports.md, "Which interception backend a run
// used"): named where the jobs were intercepted, never claimed by a run or scenario that needed
// none, nor by results of before the field.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "report_fixture.h"
#include "reports/html_report.h"
#include "reports/junit_report.h"
#include "reports/markdown_report.h"
#include "reports/terminal_table.h"

namespace killpoint {
namespace {

using ::testing::HasSubstr;
using testing::HostileReport;
using ::testing::Not;

// The hostile run with `run` as the run's backend and `scenario` as its scenario's.
ReportData WithInterception(const std::string& run, const std::string& scenario) {
  ReportData r = HostileReport();
  r.runs[0].results.interception = run;
  r.runs[0].results.scenarios[0].interception = scenario;
  r.runs[0].results.elapsed_s = 2;
  return r;
}

// A second scenario, not intercepted, beside the intercepted one.
ReportData OneOfTwoIntercepted() {
  ReportData r = WithInterception("seccomp", "seccomp");
  r.runs[0].results.scenarios[0].name = "intercepted";
  ScenarioResult plain = r.runs[0].results.scenarios[0];
  plain.name = "plain";
  plain.interception = kNoInterception;
  r.runs[0].results.scenarios.push_back(plain);
  return r;
}

std::string Table(const ReportData& r) { return RenderTable(r.runs[0].results, false); }

// The <testsuite> element of scenario `name`, up to its end.
std::string SuiteOf(const std::string& xml, const std::string& name) {
  size_t at = xml.find("<testsuite name=\"" + name + "\"");
  if (at == std::string::npos) return "";
  return xml.substr(at, xml.find("</testsuite>", at) - at);
}

TEST(Interception, TheTerminalsLastLineNamesTheBackend) {
  // Beyond 80 columns with it: the verdict goes whole onto a line of its own.
  EXPECT_THAT(Table(WithInterception("seccomp", "seccomp")),
              HasSubstr("\n4 trials in 2.0s (2.0 trials/s), seed 7, interception seccomp:\na "
                        "must-hold invariant was VIOLATED\n"));
  EXPECT_THAT(Table(WithInterception("preload", "preload")),
              HasSubstr("seed 7, interception preload:"));
  EXPECT_THAT(Table(WithInterception("mixed: seccomp, preload", "mixed: seccomp, preload")),
              HasSubstr("seed 7, interception mixed (seccomp, preload):"));
}

TEST(Interception, TheTerminalClaimsNoneWhenNoneWasUsedOrKnown) {
  for (const std::string& none : {std::string("none"), std::string("")}) {
    std::string table = Table(WithInterception(none, none));
    EXPECT_THAT(table, Not(HasSubstr("interception"))) << "'" << none << "'";
    EXPECT_THAT(table, HasSubstr("\n4 trials in 2.0s (2.0 trials/s), seed 7: a must-hold"));
  }
}

TEST(Interception, TheHtmlRunsTableHasTheColumnOnlyWhenARunIntercepted) {
  std::string html = RenderHtml(WithInterception("preload", "preload"));
  EXPECT_THAT(html, HasSubstr("<th>models</th><th>interception</th><th>job commit</th>"));
  EXPECT_THAT(html, HasSubstr("<td>process</td><td>preload</td><td><code>0123456789abcdef"));
  EXPECT_THAT(RenderHtml(WithInterception("mixed: seccomp, preload", "")),
              HasSubstr("<td>mixed (seccomp, preload)</td>"));
  for (const std::string& none : {std::string("none"), std::string("")}) {
    std::string plain = RenderHtml(WithInterception(none, none));
    EXPECT_THAT(plain, Not(HasSubstr("interception"))) << "'" << none << "'";
    EXPECT_THAT(plain, Not(HasSubstr("seccomp")));
    EXPECT_THAT(plain, Not(HasSubstr("preload")));
  }
  // Two runs, one intercepted: the other's row says it had none, or that it is not known.
  ReportData two = WithInterception("seccomp", "seccomp");
  two.runs.push_back(two.runs[0]);
  two.runs[1].results.interception = "none";
  ReportData old = two;
  old.runs[1].results.interception = "";
  EXPECT_THAT(RenderHtml(two), HasSubstr("<td>process</td><td>none</td>"));
  EXPECT_THAT(RenderHtml(old), HasSubstr("<td>process</td><td>unknown</td>"));
}

TEST(Interception, TheMarkdownRunLineNamesTheBackend) {
  EXPECT_THAT(RenderMarkdown(WithInterception("seccomp", "seccomp")),
              HasSubstr("- 4 trials of 1 scenario \u00B7 seed 7 \u00B7 models process \u00B7 "
                        "interception seccomp \u00B7 killpoint 0.1.0 \u00B7 "));
  for (const std::string& none : {std::string("none"), std::string("")}) {
    std::string md = RenderMarkdown(WithInterception(none, none));
    EXPECT_THAT(md, Not(HasSubstr("interception"))) << "'" << none << "'";
    EXPECT_THAT(md, HasSubstr("models process \u00B7 killpoint 0.1.0"));
  }
}

TEST(Interception, JunitHasThePropertyOnlyOnSuitesOfInterceptedScenarios) {
  std::string xml = RenderJunit(OneOfTwoIntercepted());
  std::string intercepted = SuiteOf(xml, "intercepted");
  ASSERT_FALSE(intercepted.empty()) << xml;
  EXPECT_THAT(intercepted, HasSubstr("<property name=\"interception\" value=\"seccomp\"/>"));
  std::string plain = SuiteOf(xml, "plain");
  ASSERT_FALSE(plain.empty()) << xml;
  EXPECT_THAT(plain, Not(HasSubstr("interception")));
  EXPECT_THAT(RenderJunit(WithInterception("", "")), Not(HasSubstr("interception")));
  EXPECT_THAT(RenderJunit(WithInterception("preload", "preload")),
              HasSubstr("<property name=\"interception\" value=\"preload\"/>"));
}

}  // namespace
}  // namespace killpoint
