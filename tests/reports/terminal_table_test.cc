#include "reports/terminal_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "report_fixture.h"

namespace killpoint {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

RunResults Wide() {
  RunResults r = testing::HostileReport().runs[0].results;
  ScenarioResult& s = r.scenarios[0];
  s.name = "publish/intent-done-without-a-directory-fsync-under-every-persistence-model";
  s.exhaustive_total = 123456;
  s.trials_by_model = {{"ext4-ordered", 1000}, {"power", 1000}, {"process", 1000}, {"torn", 1000}};
  s.invariants[0].violated_by_model = {
      {"ext4-ordered", 10}, {"power", 500}, {"process", 0}, {"torn", 321}};
  s.invariants[0].examples[0].explanation =
      "2026-11-01 was published 3 times: deliveries 3, 5 and 9, after the state file's rename was "
      "lost with its "
      "directory entry (under the power model)";
  r.seed = 18446744073709551615u;
  r.elapsed_s = 12345.6;
  return r;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1) {
    out.push_back(text.substr(start, nl - start));
  }
  return out;
}

TEST(TerminalTable, FitsIn80ColumnsButForTheReplayCommand) {
  std::string plain = RenderTable(Wide(), false);
  for (const std::string& line : Lines(plain)) {
    if (line.find("replay: ") != std::string::npos) continue;  // kept whole, to be copied
    EXPECT_LE(line.size(), 80u) << line;
  }
  EXPECT_THAT(plain, HasSubstr("    e.g. 2026-11-01 was published 3 times"));
  EXPECT_THAT(plain, HasSubstr("\n         state file's rename"));  // wrapped under the text
  EXPECT_THAT(plain, HasSubstr("    replay: killpoint run 'x' --seed 1 --trial 3 --keep\n"));
  EXPECT_THAT(plain,
              HasSubstr("\na must-hold invariant was VIOLATED\n"));  // whole, on a line of its own
}

TEST(TerminalTable, ColorsOnlyWhenAsked) {
  EXPECT_THAT(RenderTable(Wide(), false), Not(HasSubstr("\033[")));
  EXPECT_THAT(RenderTable(Wide(), true), HasSubstr("\033[1;31mVIOLATED\033[0m"));
}

TEST(TerminalTable, KeepsAShortVerdictOnTheTotalsLine) {
  RunResults r = testing::HostileReport().runs[0].results;
  r.elapsed_s = 2;
  EXPECT_THAT(
      RenderTable(r, false),
      HasSubstr("\n4 trials in 2.0s (2.0 trials/s), seed 7: a must-hold invariant was VIOLATED\n"));
}

// A scenario's own checks have long names: the columns after them stay aligned.
TEST(TerminalTable, WidensTheNameColumnToTheLongestInvariant) {
  RunResults r = testing::HostileReport().runs[0].results;
  ScenarioResult& s = r.scenarios[0];
  ASSERT_GE(s.invariants.size(), 1u);
  s.invariants.push_back(s.invariants[0]);
  s.invariants.back().name = "second_instance_never_pays";
  size_t column = std::string::npos;
  int rows = 0;
  for (const std::string& line : Lines(RenderTable(r, false))) {
    size_t at = line.find(" must hold");
    if (at == std::string::npos) at = line.find(" may break");
    if (at == std::string::npos) continue;
    if (column == std::string::npos) column = at;
    EXPECT_EQ(at, column) << line;
    EXPECT_GT(at, std::string("  second_instance_never_pays").size() - 1) << line;
    ++rows;
  }
  EXPECT_GE(rows, 2);
}

// Issue 17: `run --exhaustive --trial 13` made one trial by --trial, not by --limit.
TEST(TerminalTable, SaysAnExhaustiveRunOfOneTrialRanItByTrial) {
  RunResults r = testing::HostileReport().runs[0].results;
  r.scenarios.resize(1);
  r.scenarios[0].name = "s";
  r.scenarios[0].trials = 1;
  r.scenarios[0].exhaustive_total = 33;
  std::string table = RenderTable(r, false, 13);
  EXPECT_THAT(table, HasSubstr("exhaustive: trial 13 alone (--trial), one of 33"));
  EXPECT_THAT(table, Not(HasSubstr("--limit")));
  EXPECT_THAT(table, HasSubstr("s (1 trial, "));
  EXPECT_THAT(table, Not(HasSubstr("1 trials")));
  r.scenarios[0].exhaustive_limit = 1;
  r.scenarios[0].exhaustive_dates = 2;
  EXPECT_THAT(RenderTable(r, false),
              HasSubstr("exhaustive: 1 of 33 combinations tried (--limit 1,"));
  EXPECT_EQ(r.scenarios[0].ExhaustiveCoverage(),
            "1 of 33 combinations tried (--limit 1, spread over all of them: one in every 33.0): "
            "a kill at every crash point, moment and model of the first attempt of each of 2 "
            "dates; the attempts after a kill run fault-free");
}

// A job that never ran: said so with its stderr's last lines, no VIOLATED, no replay line.
TEST(TerminalTable, SaysAJobNeverRanAndShowsItsStderr) {
  RunResults r = Wide();
  ScenarioResult& s = r.scenarios[0];
  s.trials = 2;
  s.start_failures.Add(0, {2, "python3: can't open file '/tmp/s/no_such_file.py': [Errno 2]\n"});
  s.start_failures.Add(1, {2, ""});
  std::string plain = RenderTable(r, false);
  EXPECT_THAT(plain, HasSubstr("  JOB NEVER RAN: every attempt of its 2 trials "
                               "exited with code 2"));
  EXPECT_THAT(plain, HasSubstr("\n    | python3: can't open file '/tmp/s/no_such_file.py': "
                               "[Errno 2]\n"));
  EXPECT_THAT(plain, Not(HasSubstr("VIOLATED")));
  EXPECT_THAT(plain, Not(HasSubstr("replay: ")));
  EXPECT_THAT(plain, HasSubstr("JOB NEVER RAN: no verdict"));
}

}  // namespace
}  // namespace killpoint
