// A scenario's "services" (docs/services.md), as the parser reads them: kinds, names, the
// planned kinds named as such, and checks that query a service.
#include "scenario/service_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "error_of.h"
#include "scenario/scenario_parser.h"

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
            "'postgres'?); the kinds are: postgres, mariadb, rabbitmq");
}

TEST(Services, APlannedKindIsSaidToBeNotBuiltYet) {
  for (const char* kind : {"redis"}) {
    EXPECT_THAT(ErrorOf(ParseServicesWith("/services/db/kind", "\"" + std::string(kind) + "\"")),
                HasSubstr("services.db.kind: '" + std::string(kind) +
                          "' is planned (issue 20) but not built yet"));
  }
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

TEST(Services, AfterEveryCrashIsNotSupportedOnAServiceYet) {
  nlohmann::json j = nlohmann::json::parse(kWithService);
  j["failpoints"] = {"p"};
  j["checks"]["one_row_per_day"]["after_every_crash"] = true;
  EXPECT_THAT(ErrorOf(ParseScenario(j.dump(), "s.json")),
              HasSubstr("checks.one_row_per_day.after_every_crash: is not supported on a "
                        "service's database yet"));
}

// A rabbitmq service's checks read a queue: {"service", "queue", "messages", "says"}.
Result<Scenario> ParseQueueCheck(const std::string& kind, const nlohmann::json& check) {
  nlohmann::json j = nlohmann::json::parse(kWithService);
  j["services"]["db"]["kind"] = kind;
  j["checks"]["one_row_per_day"] = check;
  return ParseScenario(j.dump(), "s.json");
}

const nlohmann::json kQueueCheck = {
    {"service", "db"}, {"queue", "settle"}, {"messages", 0}, {"says", "messages left"}};

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
              HasSubstr("'db' is a rabbitmq service: its checks read a queue"));
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
