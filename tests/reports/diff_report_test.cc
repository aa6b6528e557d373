#include "reports/diff_report.h"

#include <gtest/gtest.h>

#include "reports/html_report.h"
#include "reports/markdown_report.h"
#include "reports/report_model.h"

namespace killpoint {
namespace {

InvariantResult DiffInv(const std::string& name, int violated) {
  InvariantResult r{name, kMustHold, 10 - violated, violated, {}, {}};
  if (violated) r.examples = {{3, 1, "plan", "broke", "killpoint run /s.json --trial 3", "", ""}};
  return r;
}

RunResults DiffRun(int new_loss, int converges, const std::string& extra = "") {
  ScenarioResult s;
  s.name = "pay";
  s.trials = 10;
  s.invariants = {DiffInv("no_loss", new_loss), DiffInv("converges", converges)};
  RunResults r;
  r.scenarios = {s};
  if (!extra.empty()) {
    s.name = extra;
    r.scenarios.push_back(s);
  }
  return r;
}

TEST(DiffReport, TheTextNamesTheNewViolationWithItsReplayAndTheVerdict) {
  RunDiff d = DiffRuns(DiffRun(0, 2), DiffRun(4, 2));
  d.before_source = "base/results.json";
  std::string text = RenderDiffText(d, false);
  EXPECT_NE(text.find("against the baseline base/results.json"), std::string::npos) << text;
  EXPECT_NE(text.find("NEW VIOLATION: pay / no_loss: VIOLATED 4/10 (baseline: held 0/10)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("replay: killpoint run /s.json --trial 3"), std::string::npos) << text;
  EXPECT_NE(text.find("still violated: pay / converges"), std::string::npos) << text;
  EXPECT_NE(text.find("1 new violation, 1 still violated"), std::string::npos) << text;
  EXPECT_NE(text.find("baseline verdict: WORSE than the baseline: 1 new violation"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("\033["), std::string::npos);
}

TEST(DiffReport, NothingWorseSaysSo) {
  RunDiff d = DiffRuns(DiffRun(3, 0), DiffRun(0, 0, "added"));
  std::string text = RenderDiffText(d, false);
  EXPECT_NE(text.find("fixed: pay / no_loss"), std::string::npos) << text;
  EXPECT_NE(text.find("scenario added: added"), std::string::npos) << text;
  EXPECT_NE(text.find("baseline verdict: nothing got worse"), std::string::npos) << text;
  EXPECT_NE(RenderDiffMarkdown(d).find("### Against the baseline: \u2705 nothing got worse\n"),
            std::string::npos);
  EXPECT_EQ(DiffCounts(DiffRuns(DiffRun(0, 0), DiffRun(1, 1))), "2 new violations");
}

TEST(DiffReport, TheMarkdownSummaryLeadsWithTheChangesAndFoldsWhatFailedBefore) {
  ReportData report;
  report.runs.push_back({"out", DiffRun(4, 2), {}, {}});
  report.baseline = DiffRuns(DiffRun(0, 2), DiffRun(4, 2));
  std::string md = RenderMarkdown(report);
  size_t diff = md.find("### Against the baseline: \u274C 1 new violation\n");
  size_t needs = md.find("### Needs a look");
  ASSERT_NE(diff, std::string::npos) << md;
  ASSERT_NE(needs, std::string::npos) << md;
  EXPECT_LT(diff, needs);
  EXPECT_EQ(md.rfind("## killpoint against the baseline", 0), 0u) << md;
  EXPECT_NE(md.find("| \u274C new violation | pay | no\\_loss | held 0/10 | VIOLATED 4/10 |"),
            std::string::npos)
      << md;
  size_t folded = md.find("<details><summary>Failing in the baseline too (1 invariant)");
  ASSERT_NE(folded, std::string::npos) << md;
  EXPECT_NE(md.find("| still violated | pay | converges", folded), std::string::npos) << md;
  // Without a baseline, the summary is as before.
  report.baseline.reset();
  EXPECT_EQ(RenderMarkdown(report).find("baseline"), std::string::npos);
}

TEST(DiffReport, TheHtmlReportLeadsWithTheChanges) {
  ReportData report;
  report.runs.push_back({"out", DiffRun(4, 2), {}, {}});
  report.baseline = DiffRuns(DiffRun(0, 2), DiffRun(4, 2));
  report.baseline->before_source = "base/results.json";
  std::string html = RenderHtml(report);
  size_t diff = html.find("<h2 id=\"baseline\">Against the baseline</h2>");
  size_t verdict = html.find("<div class=\"verdict bad\"><b>A must-hold invariant was violated");
  ASSERT_NE(diff, std::string::npos) << html;
  ASSERT_NE(verdict, std::string::npos) << html;
  EXPECT_LT(diff, verdict);
  EXPECT_NE(html.find("<b>WORSE than the baseline: 1 new violation</b><p>1 new violation, 1 "
                      "still violated (baseline: <code>base/results.json</code>)"),
            diff)
      << html;
  EXPECT_NE(html.find("<tr><td class=\"violated\">new violation</td><td>pay</td><td>no_loss</"
                      "td><td>held 0/10</td><td>VIOLATED 4/10</td></tr>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<pre>killpoint run /s.json --trial 3</pre>"), std::string::npos) << html;
  size_t folded = html.find("<details><summary>Failing in the baseline too (1 invariant)");
  ASSERT_NE(folded, std::string::npos) << html;
  EXPECT_NE(html.find("<td>still violated</td><td>pay</td><td>converges", folded),
            std::string::npos)
      << html;
  // Fixed and newly not demonstrated have rows too.
  RunDiff better = DiffRuns(DiffRun(3, 0), DiffRun(0, 0));
  EXPECT_NE(RenderDiffHtml(better).find("<td class=\"held\">fixed</td><td>pay</td><td>no_loss"),
            std::string::npos);
  EXPECT_NE(RenderDiffHtml(better).find("<div class=\"verdict ok\"><b>nothing got worse"),
            std::string::npos);
  // Without a baseline, the report is as before.
  report.baseline.reset();
  EXPECT_EQ(RenderHtml(report).find("Against the baseline"), std::string::npos);
}

TEST(DiffReport, NamesFromJobsAreEscaped) {
  RunDiff d = DiffRuns(DiffRun(0, 0), DiffRun(1, 0, "<script>x</script>"));
  std::string md = RenderDiffMarkdown(d);
  EXPECT_EQ(md.find("<script>"), std::string::npos) << md;
  EXPECT_NE(md.find("&lt;script&gt;"), std::string::npos) << md;
  std::string html = RenderDiffHtml(d);
  EXPECT_EQ(html.find("<script>"), std::string::npos) << html;
}

}  // namespace
}  // namespace killpoint
