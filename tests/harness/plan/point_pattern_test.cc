#include "plan/point_pattern.h"

#include <gtest/gtest.h>

namespace killpoint {
namespace {

TEST(PointPattern, GlobsCrossColonsAndSlashes) {
  EXPECT_TRUE(MatchPoint("rename:*:state.json", "rename:<tmp1>:state.json"));
  EXPECT_TRUE(MatchPoint("rename:*:state.json", "rename:a/b:c:state.json"));
  EXPECT_FALSE(MatchPoint("rename:*:state.json", "rename:<tmp1>:state.json.bak"));
  EXPECT_TRUE(MatchPoint("write:state*.json*", "write:state-2.json.tmp"));
  EXPECT_TRUE(MatchPoint("write:state*.json*", "write:state.json"));
  EXPECT_FALSE(MatchPoint("write:state*.json*", "fsync:state.json"));
  EXPECT_TRUE(MatchPoint("*", "before_commit"));
  EXPECT_TRUE(MatchPoint("*", "fsync:."));
  EXPECT_TRUE(MatchPoint("*:*", "fsync:."));
  EXPECT_FALSE(MatchPoint("*:*", "before_commit"));
  EXPECT_TRUE(MatchPoint("fsync:?", "fsync:."));
  EXPECT_FALSE(MatchPoint("fsync:?", "fsync:ab"));
  EXPECT_TRUE(MatchPoint("a*b*c", "axxbyybzc"));
  EXPECT_FALSE(MatchPoint("a*b*c", "axxbyybz"));
  EXPECT_TRUE(MatchPoint("exact", "exact"));
  EXPECT_FALSE(MatchPoint("exact", "exactly"));
  EXPECT_FALSE(IsPointPattern("write:<tmp1>"));
  EXPECT_TRUE(IsPointPattern("write:?"));
}

TEST(PointPattern, OpsMatchingIsWhatAShimPointOfThePatternCanBe) {
  using V = std::vector<std::string>;
  EXPECT_EQ(OpsMatching("write:state*"), V{"write"});
  EXPECT_EQ(OpsMatching("write:<tmp1>"), V{"write"});
  EXPECT_EQ(OpsMatching("rename:*:state.json"), V{"rename"});
  EXPECT_EQ(OpsMatching("before_*"), V{});
  EXPECT_EQ(OpsMatching("f*"), (V{"fsync", "fdatasync"}));
  EXPECT_EQ(OpsMatching("sync:.").size(), 1u);  // the supervisor's sync(2) and syncfs(2)
  EXPECT_EQ(OpsMatching("*").size(), kSyscallOps.size());
  EXPECT_EQ(OpsMatching("*:*").size(), kSyscallOps.size());
  EXPECT_EQ(OpsMatching("?rite:x").size(), kSyscallOps.size());
}

TEST(PointPattern, PointsMatchingLeavesOutHeldPoints) {
  std::vector<CrashPoint> found = {
      {"open:<tmp1>", 1}, {"write:<tmp1>", 1}, {"write:<tmp1>", 2}, {"before_commit", 1}};
  EXPECT_EQ(PointsMatching("write:*", found, {}),
            (std::vector<CrashPoint>{{"write:<tmp1>", 1}, {"write:<tmp1>", 2}}));
  EXPECT_EQ(PointsMatching("*", found, {"before_commit", "open:<tmp1>"}).size(), 2u);
}

}  // namespace
}  // namespace killpoint
