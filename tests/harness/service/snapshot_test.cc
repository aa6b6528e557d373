// The comparison of a server kill (docs/services.md, "Server faults"): what the restarted server
// lacks of what it held before.
#include "service/snapshot.h"

#include <gtest/gtest.h>

namespace killpoint {
namespace {

using Lines = std::vector<std::string>;

TEST(MissingAfter, NothingWhenEverythingIsBack) {
  ServiceSnapshot before = {{"t (1)"}, {"t (2)"}};
  EXPECT_EQ(MissingAfter(before, {{"t (2)"}, {"t (1)"}, {"t (3)"}}, 0), Lines{});
}

TEST(MissingAfter, CountsAsMultisetsAndSorts) {
  ServiceSnapshot before = {{"t (2)"}, {"t (1)"}, {"t (1)"}, {"u (9)"}};
  EXPECT_EQ(MissingAfter(before, {{"t (1)"}}, 0), (Lines{"t (1)", "t (2)", "u (9)"}));
  EXPECT_EQ(MissingAfter(before, {}, 0).size(), 4u);
}

TEST(MissingAfter, AChangedRowIsMissingInItsOldForm) {
  EXPECT_EQ(MissingAfter({{"t (1,100)"}}, {{"t (1,50)"}}, 0), Lines{"t (1,100)"});
}

TEST(MissingAfter, AKeyThatMayHaveExpiredMeanwhileIsNotLost) {
  ServiceSnapshot before = {
      {"string lock:a = x", 150}, {"string paid:a = 1", -1}, {"string lease:a = y", 5000}};
  EXPECT_EQ(MissingAfter(before, {}, 400), (Lines{"string lease:a = y", "string paid:a = 1"}));
}

}  // namespace
}  // namespace killpoint
