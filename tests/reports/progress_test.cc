#include "reports/progress.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "reports/terminal.h"

namespace killpoint {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(Progress, SaysDoneTotalViolationsElapsedAndTimeLeft) {
  ProgressState s{120, 560, true, 14, 2, 42};
  EXPECT_EQ(
      FormatProgress(s, 200),
      "killpoint: 120/560 trials, 14 with violations (2 must-hold), 0:42 elapsed, ~2:34 left");
}

TEST(Progress, NoEstimateBeforeTheFirstTrialOrWhileTheTotalIsUnknown) {
  EXPECT_EQ(FormatProgress({0, 40, true, 0, 0, 1}, 200),
            "killpoint: 0/40 trials, 0 with violations (0 must-hold), 0:01 elapsed");
  EXPECT_EQ(FormatProgress({10, 40, false, 0, 0, 5}, 200),
            "killpoint: 10/40+ trials, 0 with violations (0 must-hold), 0:05 elapsed");
}

TEST(Progress, IsCutToTheTerminalWidth) {
  ProgressState s{120, 560, true, 14, 2, 42};
  EXPECT_EQ(FormatProgress(s, 20), "killpoint: 120/560 t");
}

TEST(Progress, Durations) {
  EXPECT_EQ(FormatDuration(0), "0:00");
  EXPECT_EQ(FormatDuration(7.4), "0:07");
  EXPECT_EQ(FormatDuration(751), "12:31");
  EXPECT_EQ(FormatDuration(3723), "1:02:03");
  EXPECT_EQ(FormatDuration(-3), "0:00");
}

TEST(ProgressLine, RedrawsInPlaceAtMostEveryIntervalAndAlwaysOnTheLastTrial) {
  std::ostringstream out;
  double now = 100;
  {
    ProgressLine line(
        out, 200, [&] { return now; }, 0.5);
    line.Expect(3);
    now = 101;
    line.OnTrial(false, false);  // first trial: drawn
    now = 101.1;
    line.OnTrial(true, true);  // within the interval: not drawn
    now = 101.2;
    line.OnTrial(true, false);  // the last: drawn
    EXPECT_EQ(line.state().done, 3);
    EXPECT_EQ(line.state().violating, 2);
    EXPECT_EQ(line.state().must_hold_violating, 1);
  }  // destroyed: the line is erased
  EXPECT_EQ(
      out.str(),
      "\rkillpoint: 1/3 trials, 0 with violations (0 must-hold), 0:01 elapsed, ~0:02 left\033[K"
      "\rkillpoint: 3/3 trials, 2 with violations (1 must-hold), 0:01 elapsed\033[K"
      "\r\033[K");
}

TEST(ProgressLine, CountsExhaustiveScenariosWhenTheyStart) {
  std::ostringstream out;
  ProgressLine line(out, 80, [] { return 0.0; });
  line.Expect(10);
  line.ExpectUnknown();
  EXPECT_FALSE(line.state().total_known);
  line.Discovered(25);
  EXPECT_TRUE(line.state().total_known);
  EXPECT_EQ(line.state().total, 35);
}

TEST(ProgressLine, ClearsNothingItDidNotDraw) {
  std::ostringstream out;
  {
    ProgressLine line(out, 80, [] { return 0.0; });
  }
  EXPECT_EQ(out.str(), "");
}

TEST(Terminal, ColorsOnlyOnATerminalWithoutNoColor) {
  EXPECT_TRUE(ColorWanted(true, nullptr));
  EXPECT_TRUE(ColorWanted(true, ""));  // no-color.org: an empty NO_COLOR does not count
  EXPECT_FALSE(ColorWanted(true, "1"));
  EXPECT_FALSE(ColorWanted(false, nullptr));
}

}  // namespace
}  // namespace killpoint
