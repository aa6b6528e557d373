#include "reports/html_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "report_fixture.h"
#include "reports/html_escape.h"

namespace killpoint {
namespace {

using ::testing::HasSubstr;
using testing::HostileReport;
using ::testing::Not;

size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

TEST(HtmlEscape, EscapesMarkupQuotesControlsAndBrokenUtf8) {
  EXPECT_EQ(HtmlEscape("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(HtmlEscape("a\x01"
                       "b"),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(HtmlEscape("\xff"), "\xEF\xBF\xBD");
  EXPECT_EQ(HtmlEscape("caf\xC3\xA9 \xF0\x9F\x92\xA5"),
            "caf\xC3\xA9 \xF0\x9F\x92\xA5");                      // valid UTF-8 passes
  EXPECT_EQ(HtmlEscape("\xC0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong NUL is not valid
}

TEST(HtmlEscape, RejectsWhatXmlForbidsToo) {
  const std::string kBad = "\xEF\xBF\xBD";
  EXPECT_EQ(HtmlEscape("\xE0\x80\xAF"), kBad + kBad + kBad);             // overlong 3-byte '/'
  EXPECT_EQ(HtmlEscape("\xED\xA0\x80"), kBad + kBad + kBad);             // a UTF-16 surrogate
  EXPECT_EQ(HtmlEscape("\xEF\xBF\xBF"), kBad + kBad + kBad);             // U+FFFF
  EXPECT_EQ(HtmlEscape("\xF4\x90\x80\x80"), kBad + kBad + kBad + kBad);  // beyond U+10FFFF
  EXPECT_EQ(HtmlEscape("a\rb\x1b[31m"), "a" + kBad + "b" + kBad + "[31m");
  EXPECT_EQ(SanitizeText("<b>\n\t\x7f"), "<b>\n\t" + kBad);
}

TEST(HtmlReport, NothingAJobWroteBecomesMarkup) {
  std::string html = RenderHtml(HostileReport());
  // The page has no script of its own, so any "<script" would be a job's.
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, Not(HasSubstr("<img")));
  EXPECT_THAT(html, Not(HasSubstr("<iframe")));
  EXPECT_THAT(html, Not(HasSubstr("<b>after_publish")));
  EXPECT_THAT(html, Not(HasSubstr("<b>dir")));
  // It is all there, as text: the stderr of the killed attempt, the published key, the alert.
  EXPECT_THAT(html, HasSubstr("&lt;script&gt;document.title=&#39;PWNED&#39;&lt;/script&gt;"));
  EXPECT_GE(Count(html, "&lt;script&gt;"), 6u);
}

TEST(HtmlReport, IsSelfContainedAndForbidsScriptAndFetches) {
  std::string html = RenderHtml(HostileReport());
  EXPECT_THAT(
      html, HasSubstr("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                      "style-src 'unsafe-inline'; img-src data:\">"));
  for (const char* fetch : {"<link", "@import", "url(", "src=\"http", "href=\"http", "<script"}) {
    EXPECT_EQ(html.find(fetch), std::string::npos) << fetch;
  }
}

TEST(HtmlReport, ShowsTheVerdictFirstWithViolationsAndTradeOffs) {
  std::string html = RenderHtml(HostileReport());
  size_t verdict = html.find("class=\"verdict bad\"");
  ASSERT_NE(verdict, std::string::npos);
  EXPECT_LT(verdict, html.find("Strategies &times; invariants"));
  EXPECT_THAT(html, HasSubstr("<b>no_loss</b> violated in 1 of 4 trials"));
  // Issue 33: the count is of invariants, said so, and of the trials that violated them.
  EXPECT_THAT(html, HasSubstr("<b>A must-hold invariant was violated</b>: 1 invariant, violated "
                              "once over 4 trials of"));
  EXPECT_THAT(html, HasSubstr("Expected trade-offs: 1 shown, 1 not demonstrated."));
  EXPECT_THAT(html,
              HasSubstr("<b>state_readable</b> was expected to break but held in all 4 trials"));
  ReportData ok = HostileReport();
  ok.runs[0].results.scenarios[0].invariants[0].violated = 0;
  EXPECT_THAT(RenderHtml(ok),
              HasSubstr("<b>Every must-hold invariant held</b> in 4 trials of 1 scenario."));
}

TEST(HtmlReport, ShowsTheMatrixAndAHeatMapPerInvariant) {
  std::string html = RenderHtml(HostileReport());
  EXPECT_THAT(html, HasSubstr("<span class=\"inv\">no_loss</span><br>VIOLATED <small>1/4</small>"));
  EXPECT_THAT(html, HasSubstr("<span class=\"inv\">no_double_publish</span><br>expected, shown "
                              "<small>2/4</small>"));
  EXPECT_THAT(html, HasSubstr("<code>after_publish</code></td>"));
  // after_publish row: no_loss 1/3, no_double_publish 2/3, state_readable 0/3, any 2/3.
  size_t row = html.find("<code>after_publish</code>");
  std::string rest = html.substr(row, html.find("</tr>", row) - row);
  EXPECT_THAT(rest, HasSubstr(">1/3</td>"));
  EXPECT_THAT(rest, HasSubstr(">0/3</td>"));
  EXPECT_EQ(Count(rest, ">2/3</td>"), 2u);
  EXPECT_THAT(html, HasSubstr("&lt;iframe&gt;"));
}

// 50+ scenarios stay readable: rows grouped by family, each with only its own invariants (no
// cell for an invariant the scenario does not check), the name column sticky.
TEST(HtmlReport, MatrixGroupsByFamilyWithOnlyEachScenariosOwnInvariants) {
  ReportData report;
  report.runs.emplace_back();
  auto scenario = [](std::string name, std::vector<std::string> invariants) {
    ScenarioResult s;
    s.name = std::move(name);
    s.trials = 2;
    for (auto& n : invariants) s.invariants.push_back({n, kMustHold, 2, 0, {}, {}});
    return s;
  };
  auto& scenarios = report.runs[0].results.scenarios;
  scenarios.push_back(scenario("publish/a", {"no_loss", "no_double_publish"}));
  scenarios.push_back(scenario("sqlite/wal", {"commits_survive"}));
  scenarios.push_back(scenario("publish/b", {"no_double_publish", "converges"}));
  std::string html = RenderHtml(report);
  std::string matrix = html.substr(html.find("<table class=\"matrix\">"));
  matrix = matrix.substr(0, matrix.find("</table>"));
  EXPECT_THAT(matrix, Not(HasSubstr(">-</td>")));
  EXPECT_EQ(Count(matrix, "<td "), 5u);  // 2 + 1 + 2 cells: no empty ones
  // publish/b comes right after publish/a, under the publish family, before sqlite.
  size_t fam_publish = matrix.find("<tr class=\"fam\"><th class=\"name\">publish</th>");
  // Under its family's heading a row names the scenario without the family; the title has all.
  size_t a = matrix.find("title=\"publish/a\"><a href=\"#s0\">a</a>");
  size_t b = matrix.find("title=\"publish/b\"><a href=\"#s2\">b</a>");
  ASSERT_NE(a, std::string::npos) << matrix;
  ASSERT_NE(b, std::string::npos) << matrix;
  size_t fam_sqlite = matrix.find("<tr class=\"fam\"><th class=\"name\">sqlite</th>");
  ASSERT_NE(fam_publish, std::string::npos);
  ASSERT_NE(fam_sqlite, std::string::npos);
  EXPECT_LT(fam_publish, a);
  EXPECT_LT(a, b);
  EXPECT_LT(b, fam_sqlite);
  EXPECT_THAT(matrix, HasSubstr("2 scenarios, all passed"));
  // publish/b's no_double_publish lines up under publish/a's (family order), then converges.
  std::string row_b = matrix.substr(b, matrix.find("</tr>", b) - b);
  EXPECT_LT(row_b.find("no_double_publish"), row_b.find("converges"));
  EXPECT_THAT(html, HasSubstr(".matrix th.name{position:sticky;left:0"));
  EXPECT_EQ(MatrixFamily("catalogue/lock-lease"), "catalogue");
  EXPECT_EQ(MatrixFamily("settle-insert"), "settle");
  EXPECT_EQ(MatrixFamily("plain"), "plain");
}

TEST(HtmlReport, DrawsEachCounterexampleTrialOnceWithItsTimelineAndReplay) {
  std::string html = RenderHtml(HostileReport());
  // Trial 3 broke two invariants: one box, one timeline. Trial 1 has no history: a note.
  EXPECT_EQ(Count(html, "<h4>trial 3</h4>"), 1u);
  EXPECT_EQ(Count(html, "<h4>trial 1</h4>"), 1u);
  EXPECT_EQ(Count(html, "<svg class=\"timeline\""), 1u);
  EXPECT_THAT(html, HasSubstr("Timeline unavailable: out/evil/history.jsonl lacks this trial"));
  EXPECT_THAT(html, HasSubstr("<pre>killpoint run &#39;x&#39; --seed 1 --trial 3 --keep</pre>"));
  EXPECT_THAT(html, HasSubstr("2026-11-01 #1 a1"));
  EXPECT_THAT(html, HasSubstr("2026-11-01 #1 a2"));
  EXPECT_THAT(html, HasSubstr("retry after 1s (virtual)"));
  EXPECT_THAT(html, HasSubstr("killed (signal 9)"));
  EXPECT_THAT(html, HasSubstr("delivered twice (deliveries 1, 2)"));
}

TEST(HtmlReport, ShowsTheRunMetadata) {
  std::string html = RenderHtml(HostileReport());
  EXPECT_THAT(
      html,
      HasSubstr("<td><code>out/&lt;b&gt;dir&lt;/b&gt;</code></td><td>0.1.0</td><td>7</td><td>4</td>"
                "<td>process</td><td><code>0123456789abcdef0123456789abcdef01234567</code></td>"
                "<td>2026-11-29T10:00:00Z</td>"));
  EXPECT_THAT(html, HasSubstr("job commit: <code>0123456789abcdef0123456789abcdef01234567</code>"));
  EXPECT_THAT(html, HasSubstr("models: process"));
}

TEST(HtmlReport, AnchorsArePositionsSoThatRepeatedOrOddNamesStillLink) {
  ReportData r = HostileReport();
  r.runs.push_back(r.runs[0]);  // the same scenario from a second folder
  std::string html = RenderHtml(r);
  EXPECT_THAT(html, HasSubstr("<h2 id=\"s0\">"));
  EXPECT_THAT(html, HasSubstr("<h2 id=\"s1\">"));
  EXPECT_THAT(html, HasSubstr("href=\"#s1\""));
}

}  // namespace
}  // namespace killpoint
