// A baseline for pull requests (docs/ci-integration.md): the correct form of a job, then a
// change that adds one violation, run against it. The gate fails naming only that one.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "killpoint_cli.h"

namespace killpoint::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::string kCorrect = "tests/fixtures/baseline/correct.json";
const std::string kBuggy = "tests/fixtures/baseline/buggy.json";

class Baseline : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    correct_ = new CliRun(RunKillpoint("baseline-correct", {"run", kCorrect, "--quiet"}));
    changed_ = new CliRun(
        RunKillpoint("baseline-changed", {"run", kBuggy, "--baseline", correct_->dir.string()}));
  }
  static void TearDownTestSuite() {
    delete correct_;
    delete changed_;
  }
  static CliRun* correct_;
  static CliRun* changed_;
};
CliRun* Baseline::correct_ = nullptr;
CliRun* Baseline::changed_ = nullptr;

TEST_F(Baseline, AChangeThatAddsOneViolationFailsTheGateNamingOnlyIt) {
  ASSERT_EQ(correct_->exit_code, 0) << correct_->err;
  EXPECT_EQ(changed_->exit_code, 1) << changed_->out << changed_->err;
  EXPECT_THAT(changed_->out, HasSubstr("NEW VIOLATION: baseline/publish / no_double_publish: "
                                       "VIOLATED 3/3 (baseline: held 0/3)"));
  EXPECT_THAT(changed_->out, HasSubstr("replay: killpoint run " KILLPOINT_SOURCE_DIR "/" + kBuggy));
  EXPECT_THAT(changed_->out, HasSubstr("1 new violation, 2 unchanged"));
  EXPECT_THAT(changed_->out,
              HasSubstr("baseline verdict: WORSE than the baseline: 1 new violation"));
  // Only the one: no other invariant is named as a change.
  size_t first = changed_->out.find("NEW VIOLATION");
  EXPECT_EQ(changed_->out.find("NEW VIOLATION", first + 1), std::string::npos) << changed_->out;
  nlohmann::json diff = nlohmann::json::parse(Slurp(changed_->dir / "diff.json"));
  EXPECT_EQ(diff["worse"], true);
  EXPECT_EQ(diff["counts"], nlohmann::json({{"new_violation", 1}, {"unchanged", 2}}));
}

TEST_F(Baseline, TheSummaryLeadsWithTheChange) {
  std::string md = Slurp(changed_->dir / "summary.md");
  EXPECT_EQ(md.rfind("## killpoint against the baseline\n", 0), 0u) << md;
  EXPECT_THAT(md, HasSubstr("| \u274C new violation | baseline/publish | no\\_double\\_publish |"));
  EXPECT_LT(md.find("### Against the baseline"), md.find("### Needs a look"));
  // The HTML report too, above its runs and matrix.
  std::string html = Slurp(changed_->dir / "report.html");
  size_t diff = html.find("<h2 id=\"baseline\">Against the baseline</h2>");
  ASSERT_NE(diff, std::string::npos) << html;
  EXPECT_LT(diff, html.find("<h2>Runs</h2>"));
  EXPECT_THAT(html, HasSubstr("<td class=\"violated\">new violation</td><td>baseline/publish</"
                              "td><td>no_double_publish</td>"));
}

TEST_F(Baseline, DiffComparesSavedRunsAndFailsOnWhatGotWorseUnlessToldOtherwise) {
  std::string before = correct_->dir.string(), after = (changed_->dir / "results.json").string();
  CliRun worse = RunKillpoint("diff-worse", {"diff", before, after});
  EXPECT_EQ(worse.exit_code, 1) << worse.err;
  EXPECT_THAT(worse.out, HasSubstr("NEW VIOLATION: baseline/publish / no_double_publish"));
  EXPECT_EQ(RunKillpoint("diff-none", {"diff", before, after, "--fail-on", "none"}).exit_code, 0);
  // Against itself, the violation is not new: the gate passes, unless asked to fail on any.
  CliRun same = RunKillpoint("diff-same", {"diff", after, after});
  EXPECT_EQ(same.exit_code, 0) << same.out;
  EXPECT_THAT(same.out, HasSubstr("still violated: baseline/publish / no_double_publish"));
  EXPECT_THAT(same.out, Not(HasSubstr("NEW VIOLATION")));
  EXPECT_EQ(RunKillpoint("diff-any", {"diff", after, after, "--fail-on", "any"}).exit_code, 1);
  CliRun json = RunKillpoint("diff-json", {"diff", before, after, "--json", "-"});
  EXPECT_EQ(nlohmann::json::parse(json.out)["counts"]["new_violation"], 1) << json.out;
}

TEST(BaselineInput, BadBaselinesAreExitTwoWithOneLine) {
  CliRun missing = RunKillpoint("diff-missing", {"diff", "/nonexistent/out", "/nonexistent/b"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(missing.err, "killpoint: baseline /nonexistent/out: no such file or folder\n");
  fs::path dir = FreshDir("not-results");
  std::ofstream(dir / "x.json") << "{\"name\": \"a scenario, not results\"}";
  CliRun foreign = RunKillpoint("diff-foreign", {"diff", (dir / "x.json").string(), "x"});
  EXPECT_EQ(foreign.exit_code, 2);
  EXPECT_THAT(foreign.err, HasSubstr("x.json: not a killpoint results file"));
  // `run --baseline` refuses before running any trial.
  CliRun run = RunKillpoint("run-missing", {"run", kCorrect, "--baseline", dir.string()});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("results.json is missing"));
  EXPECT_FALSE(fs::exists(run.dir / "results.json"));
  CliRun fail_on = RunKillpoint(
      "fail-on", {"run", kCorrect, "--baseline", dir.string(), "--fail-on", "sometimes"});
  EXPECT_EQ(fail_on.exit_code, 2);
  EXPECT_THAT(fail_on.err, HasSubstr("--fail-on sometimes: expected worse, any or none"));
}

}  // namespace
}  // namespace killpoint::testing
