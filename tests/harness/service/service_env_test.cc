// What a job and `setup` get to find the scenario's services (service/service_set.h's
// ServiceEnv, docs/services.md): the named URL of each, and the variables its clients read by
// default when the scenario has one service of its kind. Plain data: no server runs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "service/service_set.h"

namespace killpoint {
namespace {

ServiceAddress At(const std::string& kind, int port) {
  return {kind, "127.0.0.1", port, "killpoint", kind == "mariadb" ? "root" : "postgres", "Pw1"};
}

TEST(ServiceEnv, OneMariadbGetsTheMysqlVariablesAndTheDatabaseUrl) {
  auto env = ServiceEnv({{"db", At("mariadb", 3307)}});
  EXPECT_EQ(env.at("MYSQL_HOST"), "127.0.0.1");
  EXPECT_EQ(env.at("MYSQL_TCP_PORT"), "3307");
  EXPECT_EQ(env.at("MYSQL_PORT"), "3307");
  EXPECT_EQ(env.at("MYSQL_DATABASE"), "killpoint");
  EXPECT_EQ(env.at("MYSQL_USER"), "root");
  EXPECT_EQ(env.at("MYSQL_PWD"), "Pw1");
  EXPECT_EQ(env.at("DATABASE_URL"), "mysql://root:Pw1@127.0.0.1:3307/killpoint");
  EXPECT_EQ(env.at("KILLPOINT_SERVICE_DB_URL"), "mysql://root:Pw1@127.0.0.1:3307/killpoint");
  EXPECT_EQ(env.count("PGHOST"), 0u);
}

TEST(ServiceEnv, BesideAPostgresTheDatabaseUrlIsThePostgres) {
  auto env = ServiceEnv({{"pg", At("postgres", 5433)}, {"my", At("mariadb", 3307)}});
  EXPECT_EQ(env.at("DATABASE_URL"), "postgresql://postgres:Pw1@127.0.0.1:5433/killpoint");
  EXPECT_EQ(env.at("PGPORT"), "5433");
  EXPECT_EQ(env.at("MYSQL_TCP_PORT"), "3307");
  EXPECT_EQ(env.at("KILLPOINT_SERVICE_MY_URL"), "mysql://root:Pw1@127.0.0.1:3307/killpoint");
}

TEST(ServiceEnv, TwoOfAKindGetOnlyTheirNamedUrls) {
  auto env = ServiceEnv({{"a", At("mariadb", 3307)}, {"b", At("mariadb", 3308)}});
  EXPECT_EQ(env.count("MYSQL_HOST"), 0u);
  EXPECT_EQ(env.count("DATABASE_URL"), 0u);
  EXPECT_EQ(env.at("KILLPOINT_SERVICE_A_URL"), "mysql://root:Pw1@127.0.0.1:3307/killpoint");
  EXPECT_EQ(env.at("KILLPOINT_SERVICE_B_URL"), "mysql://root:Pw1@127.0.0.1:3308/killpoint");
}

TEST(ServiceEnv, OneRabbitmqGetsAnAmqpUrlWithItsVhostEncoded) {
  ServiceAddress mq{"rabbitmq", "127.0.0.1", 5673, "killpoint-1", "killpoint", "Pw2"};
  auto env = ServiceEnv({{"mq", mq}, {"db", At("postgres", 5433)}});
  EXPECT_EQ(env.at("AMQP_URL"), "amqp://killpoint:Pw2@127.0.0.1:5673/killpoint-1");
  EXPECT_EQ(env.at("KILLPOINT_SERVICE_MQ_URL"), "amqp://killpoint:Pw2@127.0.0.1:5673/killpoint-1");
  EXPECT_EQ(env.at("DATABASE_URL"), "postgresql://postgres:Pw1@127.0.0.1:5433/killpoint");
  mq.database = "a/b c";
  EXPECT_EQ(ServiceEnv({{"mq", mq}}).at("AMQP_URL"),
            "amqp://killpoint:Pw2@127.0.0.1:5673/a%2Fb%20c");
}

using Env = std::map<std::string, std::string>;

const ServiceAddress kCache{"redis", "127.0.0.1", 6390, "0", "", "Pw3"};
const ServiceAddress kDb{"postgres", "127.0.0.1", 5440, "killpoint", "postgres", "Pw1"};

TEST(RedisServiceEnv, OneRedisServiceGetsItsUrlAndRedisUrl) {
  EXPECT_EQ(kCache.Url(), "redis://:Pw3@127.0.0.1:6390/0");
  EXPECT_EQ(ServiceEnv({{"cache", kCache}}),
            (Env{{"KILLPOINT_SERVICE_CACHE_URL", "redis://:Pw3@127.0.0.1:6390/0"},
                 {"REDIS_URL", "redis://:Pw3@127.0.0.1:6390/0"},
                 {"REDISCLI_AUTH", "Pw3"}}));
}

TEST(RedisServiceEnv, WithTwoRedisServicesOnlyTheNamedUrlsAreSet) {
  ServiceAddress other = kCache;
  other.port = 6391;
  EXPECT_EQ(ServiceEnv({{"cache", kCache}, {"locks", other}}),
            (Env{{"KILLPOINT_SERVICE_CACHE_URL", "redis://:Pw3@127.0.0.1:6390/0"},
                 {"KILLPOINT_SERVICE_LOCKS_URL", "redis://:Pw3@127.0.0.1:6391/0"}}));
}

TEST(RedisServiceEnv, BesideAPostgresServiceEachGetsItsDefaults) {
  Env env = ServiceEnv({{"cache", kCache}, {"db", kDb}});
  EXPECT_EQ(env.at("REDIS_URL"), "redis://:Pw3@127.0.0.1:6390/0");
  EXPECT_EQ(env.at("DATABASE_URL"), "postgresql://postgres:Pw1@127.0.0.1:5440/killpoint");
  EXPECT_EQ(env.at("PGPORT"), "5440");
  EXPECT_EQ(env.at("PGPASSWORD"), "Pw1");
  EXPECT_EQ(env.at("KILLPOINT_SERVICE_DB_URL"),
            "postgresql://postgres:Pw1@127.0.0.1:5440/killpoint");
}
}  // namespace
}  // namespace killpoint
