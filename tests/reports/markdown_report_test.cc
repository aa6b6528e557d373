#include "reports/markdown_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "report_fixture.h"

namespace killpoint {
namespace {

using ::testing::HasSubstr;
using testing::HostileReport;
using ::testing::Not;

TEST(Markdown, StartsWithTheVerdictAndTheRun) {
  std::string md = RenderMarkdown(HostileReport());
  EXPECT_EQ(md.rfind("## killpoint: \u274C a must-hold invariant was violated\n\n", 0), 0u) << md;
  EXPECT_THAT(
      md, HasSubstr(
              "- 4 trials of 1 scenario \u00B7 seed 7 \u00B7 models process \u00B7 killpoint "
              "0.1.0 \u00B7 "
              "job 0123456789abcdef0123456789abcdef01234567 \u00B7 started 2026-11-29T10:00:00Z"));
}

TEST(Markdown, HasOneTableRowPerInvariant) {
  std::string md = RenderMarkdown(HostileReport());
  EXPECT_THAT(md, HasSubstr("| scenario | invariant | expectation | violated | verdict |\n| --- | "
                            "--- | --- | ---: | --- |\n"));
  EXPECT_THAT(md, HasSubstr("| no\\_loss | must hold | 1/4 | \u274C **VIOLATED** |\n"));
  EXPECT_THAT(md, HasSubstr("|  | no\\_double\\_publish | expected to break | 2/4 | \u26A0\uFE0F "
                            "expected, shown |\n"));
  EXPECT_THAT(md, HasSubstr("|  | state\\_readable | expected to break | 0/4 | \u2796 expected, "
                            "not demonstrated |\n"));
}

// Issue 21: short in view: the tally, then only what needs a look (a violation, a trade-off not
// demonstrated), the full table and the trade-offs' counterexamples folded.
TEST(Markdown, LeadsWithWhatNeedsALookAndFoldsTheFullTable) {
  std::string md = RenderMarkdown(HostileReport());
  EXPECT_THAT(md, HasSubstr("**3 invariant results in 1 scenario**: 0 held, 1 violated, 0 not "
                            "exercised, 1 expected trade-off shown, 1 not demonstrated.\n"));
  size_t look = md.find("### Needs a look\n\n| scenario |");
  size_t fold =
      md.find("<details><summary>Every invariant of every scenario (3 results)</summary>");
  ASSERT_NE(look, std::string::npos) << md;
  ASSERT_NE(fold, std::string::npos) << md;
  std::string in_view = md.substr(look, md.find("\n\n", look + 20) - look);
  EXPECT_THAT(in_view, HasSubstr("no\\_loss"));
  EXPECT_THAT(in_view, HasSubstr("state\\_readable"));
  EXPECT_THAT(in_view, Not(HasSubstr("no\\_double\\_publish")));  // shown: as expected
  EXPECT_LT(look, fold);
  EXPECT_EQ(md.substr(md.size() - 11), "</details>\n");
  // The violation's counterexample in view; the trade-off's folded.
  size_t must = md.find("`no_loss` (must hold)");
  size_t trade = md.find("<details><summary>Counterexamples of the expected trade-offs");
  ASSERT_NE(trade, std::string::npos);
  EXPECT_LT(must, trade);
  EXPECT_LT(trade, md.find("`no_double_publish` (expected to break)"));
}

TEST(Markdown, ListsMustHoldCounterexamplesFirstWithTheirReplay) {
  std::string md = RenderMarkdown(HostileReport());
  size_t must = md.find("`no_loss` (must hold) \u00B7 trial 3");
  size_t shown =
      md.find("`no_double_publish` (expected to break) \u00B7 trial 3");  // issue 33: no backslash
                                                                          // in a code span
  ASSERT_NE(must, std::string::npos) << md;
  ASSERT_NE(shown, std::string::npos) << md;
  EXPECT_LT(must, shown);
  EXPECT_THAT(md, HasSubstr("```sh\nkillpoint run 'x' --seed 1 --trial 3 --keep\n```\n"));
}

TEST(Markdown, JobTextStaysText) {
  std::string md = RenderMarkdown(HostileReport());
  EXPECT_THAT(md, Not(HasSubstr("<script")));
  EXPECT_THAT(md, Not(HasSubstr("<img")));
  EXPECT_THAT(md, HasSubstr("&lt;script&gt;"));
  EXPECT_EQ(MarkdownEscape("a|b\nc *d* [x](y) `z` <i> & #h ~s~ _u_ \\"),
            "a\\|b c \\*d\\* \\[x\\](y) \\`z\\` &lt;i&gt; &amp; \\#h \\~s\\~ \\_u\\_ \\\\");
}

TEST(Markdown, ACodeBlockCannotBeClosedByTheCommandInIt) {
  ReportData r = HostileReport();
  r.runs[0].results.scenarios[0].invariants[0].examples[0].replay = "killpoint run '```x'";
  std::string md = RenderMarkdown(r);
  EXPECT_THAT(md, HasSubstr("````sh\nkillpoint run '```x'\n````\n"));
}

// Issue 33: a code span shows its text as written: no escapes inside (GitHub showed
// no\_double\_publish), a fence no backtick run in the text closes, one line.
TEST(Markdown, CodeSpansEscapeNothingAndCannotBeClosedEarly) {
  EXPECT_EQ(MarkdownCode("no_double_publish"), "`no_double_publish`");
  EXPECT_EQ(MarkdownCode("a`b``c"), "```a`b``c```");
  EXPECT_EQ(MarkdownCode("`x"), "`` `x ``");
  EXPECT_EQ(MarkdownCode("a\nb<c>"), "`a b<c>`");
}

TEST(Markdown, ListsAtMostTheTopCounterexamples) {
  ReportData r = HostileReport();
  auto& scenarios = r.runs[0].results.scenarios;
  for (int i = 0; i < 12; ++i) scenarios.push_back(scenarios[0]);
  std::string md = RenderMarkdown(r);
  size_t replays = 0;
  for (size_t at = md.find("```sh"); at != std::string::npos; at = md.find("```sh", at + 1))
    ++replays;
  EXPECT_EQ(replays, kMarkdownTopCounterexamples);
  EXPECT_THAT(md, HasSubstr("...and 16 more in the HTML report."));
}

TEST(MarkdownCodeBlock, ItsFenceIsLongerThanAnyBacktickRunInside) {
  EXPECT_EQ(MarkdownCodeBlock("ls"), "```sh\nls\n```\n");
  EXPECT_EQ(MarkdownCodeBlock("a ```` b"), "`````sh\na ```` b\n`````\n");
}

TEST(MarkdownCodeBlock, IndentsEveryLineForAListItem) {
  EXPECT_EQ(MarkdownCodeBlock("one\ntwo ```", "text", "  "),
            "  ````text\n  one\n  two ```\n  ````\n");
  EXPECT_EQ(MarkdownCodeBlock("", "text", "  "), "  ```text\n  ```\n");
}

}  // namespace
}  // namespace killpoint
