// What a job and `setup` get to find the scenario's services (service/service_set.h's
// ServiceEnv, docs/services.md): the named URL of each, and the variables its clients read by
// default when the scenario has one service of its kind. Plain data: no server runs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "service/service_set.h"

namespace killpoint {
namespace {

using Env = std::map<std::string, std::string>;

const ServiceAddress kCache{"redis", "127.0.0.1", 6390, "0", ""};
const ServiceAddress kDb{"postgres", "127.0.0.1", 5440, "killpoint", "postgres"};

TEST(RedisServiceEnv, OneRedisServiceGetsItsUrlAndRedisUrl) {
  EXPECT_EQ(kCache.Url(), "redis://127.0.0.1:6390/0");
  EXPECT_EQ(ServiceEnv({{"cache", kCache}}),
            (Env{{"KILLPOINT_SERVICE_CACHE_URL", "redis://127.0.0.1:6390/0"},
                 {"REDIS_URL", "redis://127.0.0.1:6390/0"}}));
}

TEST(RedisServiceEnv, WithTwoRedisServicesOnlyTheNamedUrlsAreSet) {
  ServiceAddress other = kCache;
  other.port = 6391;
  EXPECT_EQ(ServiceEnv({{"cache", kCache}, {"locks", other}}),
            (Env{{"KILLPOINT_SERVICE_CACHE_URL", "redis://127.0.0.1:6390/0"},
                 {"KILLPOINT_SERVICE_LOCKS_URL", "redis://127.0.0.1:6391/0"}}));
}

TEST(RedisServiceEnv, BesideAPostgresServiceEachGetsItsDefaults) {
  Env env = ServiceEnv({{"cache", kCache}, {"db", kDb}});
  EXPECT_EQ(env.at("REDIS_URL"), "redis://127.0.0.1:6390/0");
  EXPECT_EQ(env.at("DATABASE_URL"), "postgresql://postgres@127.0.0.1:5440/killpoint");
  EXPECT_EQ(env.at("PGPORT"), "5440");
  EXPECT_EQ(env.at("KILLPOINT_SERVICE_DB_URL"), "postgresql://postgres@127.0.0.1:5440/killpoint");
}

}  // namespace
}  // namespace killpoint
