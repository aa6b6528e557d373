#include "reports/html_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "reports/html_escape.h"
#include "reports/terminal_table.h"

namespace killpoint {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Results whose every job-supplied string tries to inject markup.
RunResults Hostile() {
  RunResults r;
  r.killpoint_version = "0.1.0";
  ScenarioResult s;
  s.name = "evil/<script>alert(1)</script>";
  s.file = "scenarios/\"><img src=x onerror=alert(2)>.json";
  s.trials = 1;
  s.invariants.push_back({"no_loss", kMustHold, 0, 1, {{"power", 1}},
                          {{3, 1, "a1 kill@<b>x</b>", "stderr: <script>alert(3)</script>\xff", "killpoint run 'x' --seed 1 --trial 3 --keep", ""}}});
  s.points["<iframe>"] = {1, 1};
  r.scenarios.push_back(s);
  return r;
}

TEST(HtmlEscape, EscapesMarkupQuotesControlsAndBrokenUtf8) {
  EXPECT_EQ(HtmlEscape("<a href=\"x\">'&'</a>"), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(HtmlEscape("a\x01" "b"), "a\xEF\xBF\xBD" "b");
  EXPECT_EQ(HtmlEscape("\xff"), "\xEF\xBF\xBD");
  EXPECT_EQ(HtmlEscape("caf\xC3\xA9"), "caf\xC3\xA9");  // valid UTF-8 passes
  EXPECT_EQ(HtmlEscape("\xC0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong NUL is not valid
}

TEST(HtmlReport, NothingAJobWroteBecomesMarkup) {
  std::string html = RenderHtml(Hostile());
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, Not(HasSubstr("<img")));
  EXPECT_THAT(html, Not(HasSubstr("<iframe")));
  EXPECT_THAT(html, Not(HasSubstr("<b>x")));
  EXPECT_THAT(html, HasSubstr("&lt;script&gt;alert(3)&lt;/script&gt;"));
}

TEST(HtmlReport, ShowsTheVerdictMatrixHeatMapAndReplay) {
  std::string html = RenderHtml(Hostile());
  EXPECT_THAT(html, HasSubstr("A must-hold invariant was violated."));
  EXPECT_THAT(html, HasSubstr("VIOLATED<br><small>1/1 violated"));
  EXPECT_THAT(html, HasSubstr("&lt;iframe&gt;"));
  EXPECT_THAT(html, HasSubstr("killpoint run &#39;x&#39; --seed 1 --trial 3 --keep"));
}

TEST(TerminalTable, FitsIn80ColumnsAndColorsOnlyWhenAsked) {
  RunResults r = Hostile();
  r.scenarios[0].name = "settle/upsert";
  std::string plain = RenderTable(r, false);
  EXPECT_THAT(plain, Not(HasSubstr("\033[")));
  EXPECT_THAT(RenderTable(r, true), HasSubstr("\033["));
  size_t start = 0;
  for (size_t nl; (nl = plain.find('\n', start)) != std::string::npos; start = nl + 1) {
    std::string line = plain.substr(start, nl - start);
    // Explanations and replay commands may be long; the table's own lines fit.
    if (line.find("e.g.") == std::string::npos && line.find("replay:") == std::string::npos) {
      EXPECT_LE(line.size(), 80u) << line;
    }
  }
}

}  // namespace
}  // namespace killpoint
