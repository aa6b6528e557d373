// Names that change from run to run (plan/unstable_names.h): their shape, and a discovery's
// points with those names replaced by it, at the right hit.
#include "plan/unstable_names.h"

#include <gtest/gtest.h>

#include "plan/point_pattern.h"

namespace killpoint {
namespace {

TEST(NameShape, ReplacesTheDifferingRunOfLettersAndDigitsWhole) {
  EXPECT_EQ(NameShape("open:repo/.git/objects/16/<tmp8>", "open:repo/.git/objects/a3/<tmp8>"),
            "open:repo/.git/objects/*/<tmp8>");
  EXPECT_EQ(NameShape("write:export-20261204T150512.csv", "write:export-20261204T150513.csv"),
            "write:export-*.csv");
  EXPECT_EQ(NameShape("write:objects/07/7d58", "write:objects/ad/9809"), "write:objects/*");
  EXPECT_EQ(NameShape("close:a", "close:a"), "");
}

TEST(UnstableNames, AreReplacedByTheirShapeAtTheHitTheyWere) {
  std::vector<CrashPoint> first = {{"open:index.json", 1},
                                   {"write:objects/07/7d58", 1},
                                   {"write:objects/1b/c3e0", 1},
                                   {"rename:index.tmp:index.json", 1}};
  std::vector<CrashPoint> second = {{"open:index.json", 1},
                                    {"write:objects/ad/9809", 1},
                                    {"write:objects/f2/0a11", 1},
                                    {"rename:index.tmp:index.json", 1}};
  std::vector<RenamedPoint> renamed;
  std::vector<CrashPoint> planned = PlanUnstableNamesByShape(first, second, &renamed);
  EXPECT_EQ(planned, (std::vector<CrashPoint>{{"open:index.json", 1},
                                              {"write:objects/*", 1},
                                              {"write:objects/*", 2},
                                              {"rename:index.tmp:index.json", 1}}));
  ASSERT_EQ(renamed.size(), 2u);
  EXPECT_EQ(renamed[0], (RenamedPoint{"write:objects/07/7d58", "write:objects/*"}));
  EXPECT_TRUE(IsPointPattern(planned[1].name));
  // Stable runs change nothing.
  EXPECT_EQ(PlanUnstableNamesByShape(first, first), first);
}

// Once the runs pass different operations, indexes no longer pair their points: the names
// after that are kept.
TEST(UnstableNames, AreKeptWhereTheTwoRunsPartWays) {
  std::vector<CrashPoint> first = {{"open:a", 1}, {"write:x1", 1}, {"write:y1", 1}};
  std::vector<CrashPoint> second = {{"fsync:a", 1}, {"write:x2", 1}, {"write:y2", 1}};
  EXPECT_EQ(PlanUnstableNamesByShape(first, second), first);
  std::vector<CrashPoint> shorter = {{"open:a", 1}};
  EXPECT_EQ(PlanUnstableNamesByShape(first, shorter), first);
  // A named failpoint is never reshaped.
  EXPECT_EQ(PlanUnstableNamesByShape({{"before_commit", 1}}, {{"after_commit", 1}}),
            (std::vector<CrashPoint>{{"before_commit", 1}}));
}

}  // namespace
}  // namespace killpoint
