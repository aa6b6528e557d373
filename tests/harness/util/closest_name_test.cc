#include "util/closest_name.h"

#include <gtest/gtest.h>

namespace killpoint {
namespace {

const std::vector<std::string> kRunOptions = {"--trials", "--seed", "--jobs",
                                              "--out",    "--keep", "--resume"};

TEST(ClosestName, NamesTheOptionOrFieldATypoMeant) {
  EXPECT_EQ(ClosestName("--trails", kRunOptions), "--trials");  // a swap
  EXPECT_EQ(ClosestName("--sed", kRunOptions), "--seed");       // a letter left out
  EXPECT_EQ(ClosestName("model", {"models", "dates", "job"}), "models");
  EXPECT_EQ(ClosestName("timeout", {"command", "env", "timeout_ms"}), "timeout_ms");  // a prefix
}

TEST(ClosestName, SaysNothingWhenNothingIsNearOrTwoAreAsNear) {
  EXPECT_EQ(ClosestName("--colour", kRunOptions), "");
  EXPECT_EQ(ClosestName("ab", {"cd"}), "");
  EXPECT_EQ(ClosestName("--job", {"--jobs", "--joy"}), "");  // one edit from both
  EXPECT_EQ(ClosestName("", kRunOptions), "");
  EXPECT_EQ(ClosestName(std::string(100, 'a'), {std::string(99, 'a')}), "");
}

}  // namespace
}  // namespace killpoint
