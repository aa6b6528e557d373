// Issue 17: every report says "not exercised" where planned kills never fired, and never "held".
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "reports/html_report.h"
#include "reports/junit_report.h"
#include "reports/markdown_report.h"
#include "reports/report_model.h"
#include "reports/terminal_table.h"

namespace killpoint {
namespace {

using enum PersistenceModel;

using ::testing::HasSubstr;
using ::testing::Not;

// Four trials, each with a kill planned at a syscall point named after a random temp file,
// which never fired; the scenario declared three models.
RunResults NeverFired() {
  ScenarioResult s;
  s.name = "py/mkstemp";
  s.file = "scenarios/py.json";
  s.models = {kProcess, kPower, kTorn};
  s.invariants = {{"no_double_publish", kMustHold, 0, 0, {}, {}}};
  for (int t = 0; t < 4; ++t) {
    Plan p{"py/mkstemp", 1, t, {{"2026-11-01", 1, {{"open:tmpk3x9q1ab", 1, "", kPower}}}}};
    s.Add(p, {Verdict::Held("no_double_publish")}, "",
          TrialExercise{{{"open:tmpk3x9q1ab", kPower, false}}, 0, 0, true});
  }
  RunResults r;
  r.seed = 1;
  r.scenarios = {s};
  return r;
}

TEST(NotExercised, TheTerminalTableNeverSaysHeld) {
  std::string table = RenderTable(NeverFired(), false);
  EXPECT_THAT(table, HasSubstr("NOT EXERCISED: 4 of 4 planned kills never fired"));
  EXPECT_THAT(table, HasSubstr("never reached: open:tmpk3x9q1ab"));
  EXPECT_THAT(table, HasSubstr("models run: none (no kill fired)"));
  EXPECT_THAT(table, Not(HasSubstr("process, power, torn")));
  EXPECT_THAT(table, Not(HasSubstr(" held")));
  EXPECT_THAT(table, HasSubstr("NOT EXERCISED: planned kills never fired\n"));
}

TEST(NotExercised, JunitFailsTheInvariantNamingThePointsNeverReached) {
  std::string xml = RenderJunit(SingleRunReport(NeverFired()));
  EXPECT_THAT(xml, HasSubstr("<failure message=\"not exercised: 4 of 4 planned kills never fired"));
  EXPECT_THAT(xml, HasSubstr("never reached: open:tmpk3x9q1ab\" type=\"not_exercised\""));
  EXPECT_THAT(xml, HasSubstr("tests=\"1\" failures=\"1\""));
  EXPECT_THAT(xml, Not(HasSubstr("held in all 4 trials</system-out>")));
}

TEST(NotExercised, MarkdownAndHtmlSayItToo) {
  std::string md = RenderMarkdown(SingleRunReport(NeverFired()));
  EXPECT_THAT(md, HasSubstr("not exercised"));
  EXPECT_THAT(md, HasSubstr("NOT EXERCISED"));
  EXPECT_THAT(md, Not(HasSubstr("every must-hold invariant held")));
  EXPECT_THAT(md, HasSubstr("models none (no kill fired)"));
  std::string html = RenderHtml(NeverFired());
  EXPECT_THAT(html, HasSubstr("<b>Not exercised</b>"));
  EXPECT_THAT(html, HasSubstr("NOT EXERCISED"));
  EXPECT_THAT(html, Not(HasSubstr("Every must-hold invariant held")));
}

// Issue 33: not exercised is the gate's failure, not a violation: orange, never a violation's
// red, in the HTML (its cells and its verdict box), the Markdown and the terminal.
TEST(NotExercised, IsOrangeNotTheRedOfAViolation) {
  std::string html = RenderHtml(NeverFired());
  EXPECT_THAT(html, HasSubstr("class=\"verdict warn\""));
  EXPECT_THAT(html, HasSubstr("notexercised"));
  EXPECT_THAT(html, Not(HasSubstr("class=\"violated\"")));
  std::string md = RenderMarkdown(SingleRunReport(NeverFired()));
  EXPECT_THAT(md, HasSubstr("\U0001F7E0 **NOT EXERCISED**"));
  EXPECT_THAT(md, Not(HasSubstr("\u274C")));
  std::string table = RenderTable(NeverFired(), true);
  EXPECT_THAT(table, HasSubstr("\033[1;38;5;208m"));
  EXPECT_THAT(table, Not(HasSubstr("\033[1;31m")));
}

// Issue 33: an interrupted run's reports never say "every must-hold invariant held": only its
// finished trials were judged.
TEST(PartialResults, NeverReadEveryInvariantHeld) {
  RunResults r = NeverFired();
  r.scenarios[0] = ScenarioResult{};
  r.scenarios[0].name = "py/held";
  r.scenarios[0].invariants = {{"converges", kMustHold, 7, 0, {}, {}}};
  r.scenarios[0].trials = 7;
  r.partial = "interrupted by SIGINT";
  std::string md = RenderMarkdown(SingleRunReport(r));
  EXPECT_THAT(md, HasSubstr("interrupted: no must-hold invariant was violated in the finished "
                            "trials (partial results)"));
  EXPECT_THAT(md, Not(HasSubstr("every must-hold invariant held")));
  std::string html = RenderHtml(r);
  EXPECT_THAT(html, HasSubstr("<b>Interrupted</b>: no must-hold invariant was violated"));
  EXPECT_THAT(html, Not(HasSubstr("Every must-hold invariant held")));
  EXPECT_THAT(html, HasSubstr("class=\"verdict warn\""));
}

// Issue 21: the summary stays short: a scenario not exercised is in view (it fails the gate);
// one whose kills did not all fire but that passed its min_exercised is a note, folded.
TEST(NotExercised, MarkdownFoldsTheNotesOfScenariosThatPassedTheirThreshold) {
  RunResults r = NeverFired();
  r.scenarios.push_back(r.scenarios[0]);
  r.scenarios[1].name = "py/passes";
  r.scenarios[1].exercise.min_exercised = 0.0;
  ASSERT_FALSE(r.scenarios[1].NotExercised());
  std::string md = RenderMarkdown(SingleRunReport(r));
  size_t failing = md.find("- \U0001F7E0 not exercised: **py/mkstemp**");
  size_t fold = md.find("<details><summary>1 scenario that passed its threshold all the same");
  ASSERT_NE(failing, std::string::npos) << md;
  ASSERT_NE(fold, std::string::npos) << md;
  EXPECT_LT(failing, fold);
  EXPECT_LT(fold, md.find("- **py/passes**: 4 of 4 planned kills never fired"));
}

}  // namespace
}  // namespace killpoint
