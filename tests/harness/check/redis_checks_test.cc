// A scenario's own check on a redis service's keys (docs/services.md, "Redis checks"), judged
// on hand-made key lists: too few, too many, a key with no expiry; the explanation names them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "check/checker.h"

namespace killpoint {
namespace {

using ::testing::HasSubstr;

constexpr const char* kWhere = "service cache (redis)";

SqlCheck KeysCheck(RedisKeyCheck keys) {
  SqlCheck c;
  c.service = "cache";
  c.says = "a lock problem";
  c.redis = std::move(keys);
  return c;
}

Verdict Judge(RedisKeyCheck keys, const std::vector<RedisKeyState>& found) {
  return JudgeRedisKeys("lock_check", KeysCheck(std::move(keys)), found, kWhere);
}

TEST(RedisKeyChecks, TtlRequiredIsViolatedByAKeyThatNeverExpires) {
  RedisKeyCheck ttl{"lock:*", std::nullopt, std::nullopt, true};
  Verdict v = Judge(ttl, {{"lock:a", 120}, {"lock:b", -1}});
  EXPECT_FALSE(v.held) << v;
  EXPECT_EQ(v.invariant, "lock_check");
  EXPECT_EQ(v.explanation,
            "a lock problem: 1 of 2 keys matching 'lock:*' in service cache (redis) has no "
            "expiry: lock:b (no expiry)");
  Verdict ok = Judge(ttl, {{"lock:a", 120}});
  EXPECT_TRUE(ok.held) << ok;
  EXPECT_TRUE(Judge(ttl, {}).held);
}

TEST(RedisKeyChecks, AtMostCountsTheMatchingKeysAndNamesTheFirstThree) {
  RedisKeyCheck none{"lock:*", std::nullopt, 0, false};
  EXPECT_TRUE(Judge(none, {}).held);
  Verdict v = Judge(none, {{"lock:1", -1}, {"lock:2", 5}, {"lock:3", -1}, {"lock:4", -1}});
  EXPECT_FALSE(v.held) << v;
  EXPECT_EQ(v.explanation,
            "a lock problem: 4 keys matching 'lock:*' in service cache (redis), at most 0 "
            "expected: first 3: lock:1 (no expiry); lock:2 (expires in 5 ms); lock:3 (no expiry)");
  EXPECT_TRUE(Judge({"lock:*", std::nullopt, 1, false}, {{"lock:1", -1}}).held);
}

TEST(RedisKeyChecks, AtLeastIsViolatedByTooFewKeys) {
  RedisKeyCheck two{"done:*", 2, std::nullopt, false};
  Verdict v = Judge(two, {{"done:2026-11-01", -1}});
  EXPECT_FALSE(v.held) << v;
  EXPECT_EQ(v.explanation,
            "a lock problem: 1 key matching 'done:*' in service cache (redis), at least 2 "
            "expected: done:2026-11-01 (no expiry)");
  EXPECT_THAT(Judge(two, {}).explanation, HasSubstr("0 keys matching 'done:*'"));
  EXPECT_TRUE(Judge(two, {{"done:1", -1}, {"done:2", -1}}).held);
}

TEST(RedisKeyChecks, AServiceThatDidNotRunIsAViolation) {
  Verdict v = RunServiceRedisCheck("lock_check", KeysCheck({"lock:*", std::nullopt, 0, false}), {});
  EXPECT_FALSE(v.held);
  EXPECT_THAT(v.explanation, HasSubstr("service cache did not run in this trial"));
}

TEST(RedisKeyChecks, AServiceCheckOnKeysGoesToRedis) {
  // Through the SQL entry point, as checker.cc calls it: no SQL is run for a check on keys.
  Verdict v = RunServiceSqlCheck("lock_check", KeysCheck({"lock:*", std::nullopt, 0, false}),
                                 {{"cache", {"redis", "127.0.0.1", 1, "0", "", "pw"}}});
  EXPECT_FALSE(v.held);
  EXPECT_THAT(v.explanation, HasSubstr("cannot run the check on service cache (redis): cannot "
                                       "connect to redis at 127.0.0.1:1"));
}

}  // namespace
}  // namespace killpoint
