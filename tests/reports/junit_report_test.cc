#include "reports/junit_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "report_fixture.h"

namespace killpoint {
namespace {

using ::testing::HasSubstr;
using testing::HostileReport;
using ::testing::Not;

// The <testcase ...>...</testcase> element of one invariant.
std::string Case(const std::string& xml, const std::string& name) {
  size_t at = xml.find("<testcase name=\"" + name + "\"");
  if (at == std::string::npos) return "";
  return xml.substr(at, xml.find("</testcase>", at) - at);
}

TEST(Junit, CountsAreTheResultsCounts) {
  std::string xml = RenderJunit(HostileReport());
  EXPECT_THAT(
      xml,
      HasSubstr(
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"killpoint\" tests=\"3\" "
          "failures=\"1\" errors=\"0\" skipped=\"1\""));
  EXPECT_THAT(xml, HasSubstr("tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\" time=\"0.000\" "
                             "timestamp=\"2026-11-29T10:00:00\">"));
}

// Issue 21: no testcase has time="0": each gets its share of the scenario's time (every trial
// checks all invariants at once), and they add up to the suite's.
TEST(Junit, EveryTestcaseHasItsShareOfTheScenariosTime) {
  ReportData report = HostileReport();
  report.runs[0].results.scenarios[0].elapsed_s = 4.5;  // 3 invariants: 1.5s each
  std::string xml = RenderJunit(report);
  EXPECT_THAT(xml, HasSubstr("skipped=\"1\" time=\"4.500\" timestamp="));
  for (const char* name : {"no_loss", "no_double_publish", "state_readable"})
    EXPECT_THAT(Case(xml, name), HasSubstr("time=\"1.500\">")) << name;
  EXPECT_THAT(xml, Not(HasSubstr("time=\"0\"")));
}

TEST(Junit, AViolatedMustHoldIsAFailureWithTheExplanationAndTheReplay) {
  std::string c = Case(RenderJunit(HostileReport()), "no_loss");
  EXPECT_THAT(c, HasSubstr("<failure message=\"lost: &lt;script&gt;"));
  EXPECT_THAT(
      c, HasSubstr("type=\"must_hold\">killpoint run &#39;x&#39; --seed 1 --trial 3 --keep\n"));
  EXPECT_THAT(c, HasSubstr("violated in 1 of 4 trials"));
  EXPECT_THAT(c, HasSubstr("file=\"scenarios/&quot;&gt;&lt;img"));
}

TEST(Junit, AShownTradeOffPassesWithANoteAndAnUnshownOneIsSkipped) {
  std::string xml = RenderJunit(HostileReport());
  std::string shown = Case(xml, "no_double_publish");
  EXPECT_THAT(shown, Not(HasSubstr("<failure")));
  EXPECT_THAT(shown, Not(HasSubstr("<skipped")));
  EXPECT_THAT(shown, HasSubstr("<system-out>expected trade-off, shown: broke in 2 of 4 trials"));
  EXPECT_THAT(shown, HasSubstr("replay: replay 3"));
  std::string unshown = Case(xml, "state_readable");
  EXPECT_THAT(
      unshown,
      HasSubstr("<skipped message=\"expected to break, but held in all 4 trials: the trade-off was "
                "not demonstrated"));
}

TEST(Junit, OneTrialIsNotAllOneTrials) {
  EXPECT_EQ(AllTrials(1), "its one trial");
  EXPECT_EQ(AllTrials(4), "all 4 trials");
}

TEST(Junit, NothingFromAJobBreaksTheXml) {
  std::string xml = RenderJunit(HostileReport());
  EXPECT_THAT(xml, Not(HasSubstr("<script")));
  EXPECT_THAT(xml, Not(HasSubstr("<img")));
  EXPECT_THAT(xml, Not(HasSubstr("<b>")));
  EXPECT_THAT(xml, HasSubstr("<testsuite name=\"evil/&lt;script&gt;"));
  EXPECT_THAT(
      xml,
      HasSubstr(
          "<property name=\"job_commit\" value=\"0123456789abcdef0123456789abcdef01234567\"/>"));
  EXPECT_THAT(xml, HasSubstr("<property name=\"results\" value=\"out/&lt;b&gt;dir&lt;/b&gt;\"/>"));
}

TEST(Junit, OneSuitePerScenarioOfEveryRun) {
  ReportData r = HostileReport();
  r.runs.push_back(r.runs[0]);
  r.runs[1].results.scenarios[0].invariants[0].violated = 0;
  std::string xml = RenderJunit(r);
  EXPECT_THAT(
      xml,
      HasSubstr(
          "<testsuites name=\"killpoint\" tests=\"6\" failures=\"1\" errors=\"0\" skipped=\"2\""));
  size_t suites = 0;
  for (size_t at = xml.find("<testsuite "); at != std::string::npos;
       at = xml.find("<testsuite ", at + 1))
    ++suites;
  EXPECT_EQ(suites, 2u);
}

}  // namespace
}  // namespace killpoint
