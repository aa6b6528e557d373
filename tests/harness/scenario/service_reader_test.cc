// A scenario's "services" (docs/services.md), as the parser reads them: kinds, names, and the
// checks that query a service.
#include "scenario/service_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "error_of.h"
#include "scenario/scenario_parser.h"
#include "scenario/service_kind.h"

namespace killpoint {
namespace {

using ::testing::HasSubstr;

const char* kWithService = R"({
  "name": "services/x",
  "job": {"command": ["true"]},
  "dates": ["2026-11-01"],
  "services": {"db": {"kind": "postgres"}},
  "checks": {"one_row_per_day": {"service": "db",
     "sql": "SELECT day FROM settlement GROUP BY day HAVING count(*) > 1",
     "says": "a day with two rows"}},
  "invariants": {"must_hold": ["one_row_per_day", "converges"]}
})";

const nlohmann::json kQueueCheck = {
    {"service", "db"}, {"queue", "settle"}, {"messages", 0}, {"says", "messages left"}};

Result<Scenario> ParseServicesWith(const std::string& pointer, const std::string& value) {
  nlohmann::json j = nlohmann::json::parse(kWithService);
  j[nlohmann::json::json_pointer(pointer)] = nlohmann::json::parse(value);
  return ParseScenario(j.dump(), "s.json");
}

TEST(Services, AreReadByNameWithTheirKindAndAChecksServiceToo) {
  auto s = ParseScenario(kWithService, "s.json");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s.value().services, (std::map<std::string, ServiceSpec>{{"db", {"postgres"}}}));
  EXPECT_EQ(s.value().checks.at("one_row_per_day").service, "db");
  EXPECT_EQ(s.value().checks.at("one_row_per_day").db, "");
}

TEST(Services, NoneIsTheDefault) {
  nlohmann::json j = nlohmann::json::parse(kWithService);
  j.erase("services");
  j.erase("checks");
  j["invariants"]["must_hold"] = {"converges"};
  auto s = ParseScenario(j.dump(), "s.json");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_TRUE(s.value().services.empty());
}

TEST(Services, AnUnknownKindIsNamedWithTheKnownOnesAndATypoGetsASuggestion) {
  EXPECT_EQ(ErrorOf(ParseServicesWith("/services/db/kind", "\"postgress\"")),
            "s.json: services.db.kind: unknown service kind 'postgress' (did you mean "
            "'postgres'?); the kinds are: postgres, mariadb, redis, rabbitmq");
}

TEST(Services, AMariadbServiceAnswersSqlChecksToo) {
  auto s = ParseServicesWith("/services/db/kind", "\"mariadb\"");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s.value().services.at("db").kind, "mariadb");
  EXPECT_EQ(s.value().checks.at("one_row_per_day").service, "db");
}

TEST(Services, AKindIsRequiredAndNothingElseIsRead) {
  EXPECT_THAT(ErrorOf(ParseServicesWith("/services/db", "{}")), HasSubstr("services.db.kind"));
  EXPECT_THAT(ErrorOf(ParseServicesWith("/services/db/port", "5432")),
              HasSubstr("services.db.port"));
}

TEST(Services, ANameIsLowerCaseLettersDigitsAndUnderscores) {
  nlohmann::json j = nlohmann::json::parse(kWithService);
  j["services"]["Bad-Name"] = {{"kind", "postgres"}};
  EXPECT_THAT(ErrorOf(ParseScenario(j.dump(), "s.json")),
              HasSubstr("services.Bad-Name: a service's name is a lower-case letter"));
}

TEST(Services, ACheckNamesAServiceOfTheScenario) {
  EXPECT_EQ(ErrorOf(ParseServicesWith("/checks/one_row_per_day/service", "\"cache\"")),
            "s.json: checks.one_row_per_day.service: names no service of the scenario: 'cache'");
}

TEST(Services, ACheckReadsADbOrAServiceNotBoth) {
  EXPECT_THAT(ErrorOf(ParseServicesWith("/checks/one_row_per_day/db", "\"x.db\"")),
              HasSubstr("checks.one_row_per_day.db: a check reads either a sandbox database"));
}

TEST(Services, AServiceChecksSqlIsAQueryButNotJudgedBySqlite) {
  // PostgreSQL's own syntax (a cast SQLite cannot prepare) is the server's to judge.
  EXPECT_TRUE(ParseServicesWith(
      "/checks/one_row_per_day/sql",
      "\"SELECT day::text FROM settlement WHERE day > now() - interval '1 day'\""));
  EXPECT_THAT(
      ErrorOf(ParseServicesWith("/checks/one_row_per_day/sql", "\"DELETE FROM settlement\"")),
      HasSubstr("expected one query (SELECT, WITH or VALUES)"));
}

// after_every_crash on a service: the server outlives the killed job, so its live state is the
// crash state (docs/services.md). SQL, keys and queue checks all take it; a scenario where no
// attempt can crash still may not.
TEST(Services, AfterEveryCrashIsReadOnEveryKindOfServiceCheck) {
  nlohmann::json j = nlohmann::json::parse(kWithService);
  j["failpoints"] = {"p"};
  j["checks"]["one_row_per_day"]["after_every_crash"] = true;
  auto sql = ParseScenario(j.dump(), "s.json");
  ASSERT_TRUE(sql) << sql.error().message;
  EXPECT_TRUE(sql.value().checks.at("one_row_per_day").after_every_crash);
  j["services"]["db"]["kind"] = "mariadb";
  auto mariadb = ParseScenario(j.dump(), "s.json");
  ASSERT_TRUE(mariadb) << mariadb.error().message;
  EXPECT_TRUE(mariadb.value().checks.at("one_row_per_day").after_every_crash);

  nlohmann::json queue = kQueueCheck;
  queue["after_every_crash"] = true;
  nlohmann::json q = nlohmann::json::parse(kWithService);
  q["failpoints"] = {"p"};
  q["services"]["db"]["kind"] = "rabbitmq";
  q["checks"]["one_row_per_day"] = queue;
  auto mq = ParseScenario(q.dump(), "s.json");
  ASSERT_TRUE(mq) << mq.error().message;
  EXPECT_TRUE(mq.value().checks.at("one_row_per_day").after_every_crash);

  j["failpoints"] = nlohmann::json::array();
  EXPECT_THAT(ErrorOf(ParseScenario(j.dump(), "s.json")),
              HasSubstr("checks.one_row_per_day.after_every_crash: no attempt can crash"));
}

const char* kWithRedis = R"({
  "name": "services/r",
  "job": {"command": ["true"]},
  "dates": ["2026-11-01"],
  "services": {"cache": {"kind": "redis"}},
  "checks": {"lock_expires": {"service": "cache", "keys": "lock:*", "ttl": "required",
     "says": "a lock that never expires"}},
  "invariants": {"must_hold": ["lock_expires", "converges"]}
})";

Result<Scenario> ParseRedisWith(const std::string& pointer, const std::string& value) {
  nlohmann::json j = nlohmann::json::parse(kWithRedis);
  j[nlohmann::json::json_pointer(pointer)] = nlohmann::json::parse(value);
  return ParseScenario(j.dump(), "s.json");
}

Result<Scenario> ParseRedisWithout(const std::string& field) {
  nlohmann::json j = nlohmann::json::parse(kWithRedis);
  j["checks"]["lock_expires"].erase(field);
  return ParseScenario(j.dump(), "s.json");
}

TEST(RedisServices, AKeysCheckIsAlsoReadAfterEveryCrash) {
  nlohmann::json j = nlohmann::json::parse(kWithRedis);
  j["failpoints"] = {"p"};
  j["checks"]["lock_expires"]["after_every_crash"] = true;
  auto s = ParseScenario(j.dump(), "s.json");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_TRUE(s.value().checks.at("lock_expires").after_every_crash);
}

TEST(RedisServices, AKindRedisAndACheckOnItsKeysAreRead) {
  auto s = ParseScenario(kWithRedis, "s.json");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s.value().services, (std::map<std::string, ServiceSpec>{{"cache", {"redis"}}}));
  const SqlCheck& c = s.value().checks.at("lock_expires");
  EXPECT_EQ(c.service, "cache");
  EXPECT_EQ(c.sql, "");
  EXPECT_EQ(c.redis, (RedisKeyCheck{"lock:*", std::nullopt, std::nullopt, true}));
  auto counted = ParseRedisWith("/checks/lock_expires/at_most", "0");
  ASSERT_TRUE(counted) << counted.error().message;
  EXPECT_EQ(counted.value().checks.at("lock_expires").redis.at_most, 0);
}

TEST(RedisServices, ACheckOnKeysSaysWhatOfThem) {
  auto j = nlohmann::json::parse(kWithRedis);
  j["checks"]["lock_expires"].erase("ttl");
  EXPECT_THAT(ErrorOf(ParseScenario(j.dump(), "s.json")),
              HasSubstr("checks.lock_expires.keys: says which keys; also say what of them: "
                        "at_least, at_most or \"ttl\": \"required\""));
  EXPECT_THAT(ErrorOf(ParseRedisWith("/checks/lock_expires/ttl", "\"optional\"")),
              HasSubstr("checks.lock_expires.ttl: expected \"required\""));
  EXPECT_THAT(ErrorOf(ParseRedisWith("/checks/lock_expires/keys", "\"\"")),
              HasSubstr("checks.lock_expires.keys: expected a key or a glob pattern"));
  EXPECT_THAT(ErrorOf(ParseRedisWith("/checks/lock_expires/at_most", "-1")),
              HasSubstr("checks.lock_expires.at_most"));
}

TEST(RedisServices, AtLeastAboveAtMostIsRefused) {
  nlohmann::json j = nlohmann::json::parse(kWithRedis);
  j["checks"]["lock_expires"]["at_least"] = 3;
  j["checks"]["lock_expires"]["at_most"] = 1;
  EXPECT_THAT(ErrorOf(ParseScenario(j.dump(), "s.json")),
              HasSubstr("checks.lock_expires.at_most: is below at_least (3)"));
}

TEST(RedisServices, ACheckReadsKeysOrRunsSqlNotBoth) {
  EXPECT_THAT(ErrorOf(ParseRedisWith("/checks/lock_expires/sql", "\"SELECT 1\"")),
              HasSubstr("checks.lock_expires.sql: a check reads keys (a redis service) or runs "
                        "sql, not both"));
}

TEST(RedisServices, ACheckOnKeysNamesARedisService) {
  EXPECT_THAT(ErrorOf(ParseRedisWithout("service")),
              HasSubstr("checks.lock_expires.service: a check on keys names its redis service"));
  EXPECT_EQ(ErrorOf(ParseRedisWith("/services/cache/kind", "\"postgres\"")),
            "s.json: checks.lock_expires.service: 'cache' is a postgres service; checks on keys "
            "run on redis services (a postgres check reads \"sql\")");
}

TEST(RedisServices, SqlOnARedisServiceIsRefusedWithAHint) {
  EXPECT_THAT(ErrorOf(ParseServicesWith("/services/db/kind", "\"redis\"")),
              HasSubstr("checks.one_row_per_day.service: 'db' is a redis service; SQL checks run "
                        "on postgres and mariadb services (a redis check reads \"keys\")"));
}

TEST(RedisServices, NothingButTheKindIsRead) {
  EXPECT_THAT(ErrorOf(ParseRedisWith("/services/cache/persistence", "\"aof\"")),
              HasSubstr("services.cache.persistence"));
}

// A rabbitmq service's checks read a queue: {"service", "queue", "messages", "says"}.
Result<Scenario> ParseQueueCheck(const std::string& kind, const nlohmann::json& check) {
  nlohmann::json j = nlohmann::json::parse(kWithService);
  j["services"]["db"]["kind"] = kind;
  j["checks"]["one_row_per_day"] = check;
  return ParseScenario(j.dump(), "s.json");
}

TEST(Services, ARabbitmqServiceChecksAQueuesMessageCount) {
  auto s = ParseQueueCheck("rabbitmq", kQueueCheck);
  ASSERT_TRUE(s) << s.error().message;
  const SqlCheck& check = s.value().checks.at("one_row_per_day");
  EXPECT_EQ(check.service, "db");
  EXPECT_EQ(check.queue, "settle");
  EXPECT_EQ(check.messages, 0);
  EXPECT_EQ(check.sql, "");
}

TEST(Services, AQueueCheckIsRefusedWhereItCannotRun) {
  EXPECT_THAT(ErrorOf(ParseQueueCheck("postgres", kQueueCheck)),
              HasSubstr("checks.one_row_per_day.service: 'db' is a postgres service; queue "
                        "checks run on rabbitmq services"));
  nlohmann::json sql = nlohmann::json::parse(kWithService)["checks"]["one_row_per_day"];
  EXPECT_THAT(ErrorOf(ParseQueueCheck("rabbitmq", sql)),
              HasSubstr("'db' is a rabbitmq service; SQL checks run on postgres and mariadb "
                        "services (a rabbitmq check reads \"queue\" and \"messages\")"));
  nlohmann::json both = kQueueCheck;
  both["sql"] = "SELECT 1";
  EXPECT_THAT(ErrorOf(ParseQueueCheck("rabbitmq", both)),
              HasSubstr("checks.one_row_per_day.sql: a check reads either a queue"));
  nlohmann::json no_service = kQueueCheck;
  no_service.erase("service");
  EXPECT_THAT(ErrorOf(ParseQueueCheck("rabbitmq", no_service)),
              HasSubstr("checks.one_row_per_day.queue: a queue check names its rabbitmq service"));
}

TEST(Services, AQueueCheckNeedsACountOfZeroOrMore) {
  nlohmann::json check = kQueueCheck;
  check.erase("messages");
  EXPECT_THAT(ErrorOf(ParseQueueCheck("rabbitmq", check)),
              HasSubstr("checks.one_row_per_day.messages"));
  check["messages"] = -1;
  EXPECT_THAT(ErrorOf(ParseQueueCheck("rabbitmq", check)),
              HasSubstr("checks.one_row_per_day.messages"));
  check["messages"] = 0;
  check["queue"] = "";
  EXPECT_THAT(ErrorOf(ParseQueueCheck("rabbitmq", check)),
              HasSubstr("checks.one_row_per_day.queue: expected a queue's name"));
}

}  // namespace
}  // namespace killpoint

namespace killpoint {
namespace {

// scenario/service_kind.h's table, read back through the parser for every kind: a service of the
// kind is read with its durabilities, a check of the kind's sort is taken, the other sorts are
// refused with the kinds that answer them. A new kind's line is tested here unchanged.
nlohmann::json CheckOfSort(ServiceCheck sort) {
  switch (sort) {
    case ServiceCheck::kSql:
      return {{"service", "s"}, {"sql", "SELECT 1 WHERE false"}, {"says", "rows"}};
    case ServiceCheck::kKeys:
      return {{"service", "s"}, {"keys", "lock:*"}, {"ttl", "required"}, {"says", "a key"}};
    case ServiceCheck::kQueue:
      return {{"service", "s"}, {"queue", "q"}, {"messages", 0}, {"says", "messages"}};
  }
  return {};
}

Result<Scenario> ParseKindWith(const ServiceKind& kind, ServiceCheck sort,
                               const std::string& durability = "") {
  nlohmann::json j = nlohmann::json::parse(kWithService);
  j["services"] = {{"s", {{"kind", kind.name}}}};
  if (!durability.empty()) j["services"]["s"]["durability"] = durability;
  j["checks"] = {{"c", CheckOfSort(sort)}};
  j["invariants"]["must_hold"] = {"c"};
  return ParseScenario(j.dump(), "s.json");
}

TEST(ServiceKindTable, EveryKindIsReadWithItsChecksAndDurabilities) {
  for (const ServiceKind& kind : kServiceKinds) {
    auto s = ParseKindWith(kind, kind.check);
    ASSERT_TRUE(s) << kind.name << ": " << s.error().message;
    EXPECT_EQ(s.value().services.at("s").kind, kind.name);
    EXPECT_EQ(s.value().services.at("s").durability, kDurable);
    EXPECT_EQ(bool(ParseKindWith(kind, kind.check, kFast)), kind.has_fast) << kind.name;
  }
}
TEST(ServiceKindTable, EveryKindRefusesTheOtherChecksNamingTheKindsThatAnswerThem) {
  for (const ServiceKind& kind : kServiceKinds) {
    for (ServiceCheck sort : {ServiceCheck::kSql, ServiceCheck::kKeys, ServiceCheck::kQueue}) {
      if (sort == kind.check) continue;
      std::string error = ErrorOf(ParseKindWith(kind, sort));
      EXPECT_THAT(error, HasSubstr("'s' is a " + std::string(kind.name) + " service; ")) << error;
      for (const ServiceKind& other : kServiceKinds) {
        if (other.check != sort) continue;
        EXPECT_THAT(error, HasSubstr(std::string(other.name))) << error;
      }
    }
  }
}

}  // namespace
}  // namespace killpoint
