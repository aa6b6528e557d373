#include "suite/shard.h"

#include <gtest/gtest.h>

namespace killpoint {
namespace {

TEST(ParseShard, ReadsIndexOverCount) {
  auto s = ParseShard("2/4");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s.value(), (ShardInfo{2, 4}));
  EXPECT_EQ(ParseShard("0/1").value(), (ShardInfo{0, 1}));
}

TEST(ParseShard, RefusesBadValuesWithOneLine) {
  for (const char* bad :
       {"4/4", "5/4", "0/0", "-1/4", "1/-4", "x/4", "1/y", "1", "", "1/2/3", "1 /4", "+1/4"}) {
    auto s = ParseShard(bad);
    ASSERT_FALSE(s) << bad;
    EXPECT_EQ(s.error().kind, ErrorKind::kBadInput) << bad;
    EXPECT_EQ(s.error().message.find('\n'), std::string::npos) << bad;
    EXPECT_NE(s.error().message.find("--shard"), std::string::npos) << bad;
  }
}

TEST(Shard, EveryTrialBelongsToExactlyOneShard) {
  for (int count = 1; count <= 5; ++count) {
    for (int total = 0; total <= 13; ++total) {
      int sum = 0;
      for (int index = 0; index < count; ++index) {
        ShardInfo shard{index, count};
        int mine = 0;
        for (int t = 0; t < total; ++t) mine += InShard(t, shard);
        EXPECT_EQ(mine, ShareOf(total, shard)) << index << "/" << count << " of " << total;
        sum += mine;
      }
      EXPECT_EQ(sum, total);
    }
  }
  EXPECT_TRUE(InShard(7, std::nullopt));
  EXPECT_EQ(ShareOf(7, std::nullopt), 7);
}

}  // namespace
}  // namespace killpoint
