// A scenario's own invariants ("checks"), as the parser reads them: names, SQL found bad at
// load time, and where the names may be used.
#include "scenario/check_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "error_of.h"
#include "scenario/scenario_parser.h"

namespace killpoint {
namespace {

using ::testing::HasSubstr;

const char* kWithCheck = R"({
  "name": "catalogue/x",
  "job": {"command": ["true"]},
  "dates": ["2026-11-01"],
  "checks": {"one_status_per_order": {"db": "orders.db",
     "sql": "SELECT order_id, count(*) AS n FROM order_status GROUP BY order_id HAVING n > 1",
     "says": "an order has more than one status row"}},
  "invariants": {"must_hold": ["one_status_per_order", "converges"]}
})";

Result<Scenario> ParseCheckWith(const std::string& pointer, const std::string& value) {
  nlohmann::json j = nlohmann::json::parse(kWithCheck);
  j[nlohmann::json::json_pointer(pointer)] = nlohmann::json::parse(value);
  return ParseScenario(j.dump(), "s.json");
}

TEST(Checks, AreReadWithTheirNameDbSqlAndMeaning) {
  auto s = ParseScenario(kWithCheck, "s.json");
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_EQ(s.value().checks.size(), 1u);
  const SqlCheck& c = s.value().checks.at("one_status_per_order");
  EXPECT_EQ(c.db, "orders.db");
  EXPECT_THAT(c.sql, HasSubstr("HAVING n > 1"));
  EXPECT_EQ(c.says, "an order has more than one status row");
  EXPECT_FALSE(c.missing_db_holds);
  EXPECT_EQ(s.value().must_hold, (std::vector<std::string>{"one_status_per_order", "converges"}));
}

TEST(Checks, MissingDbMayBeDeclaredHeld) {
  auto s = ParseCheckWith("/checks/one_status_per_order/missing_db", "\"held\"");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_TRUE(s.value().checks.at("one_status_per_order").missing_db_holds);
}

TEST(Checks, MayBeCheckedAfterEveryCrashOfAScenarioThatCrashes) {
  EXPECT_FALSE(ParseScenario(kWithCheck, "s.json")
                   .value()
                   .checks.at("one_status_per_order")
                   .after_every_crash);
  nlohmann::json j = nlohmann::json::parse(kWithCheck);
  j["checks"]["one_status_per_order"]["after_every_crash"] = true;
  j["syscall_points"] = true;
  auto s = ParseScenario(j.dump(), "s.json");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_TRUE(s.value().checks.at("one_status_per_order").after_every_crash);
  j.erase("syscall_points");
  j["failpoints"] = {"after_commit"};
  EXPECT_TRUE(ParseScenario(j.dump(), "s.json"));
}

TEST(Checks, MayBeExpectedViolations) {
  auto s = ParseCheckWith(
      "/invariants",
      R"({"must_hold": ["converges"], "expected_violations": ["one_status_per_order"]})");
  ASSERT_TRUE(s) << s.error().message;
}

struct BadCheck {
  std::string pointer, value, expected;
};
class ChecksReject : public ::testing::TestWithParam<BadCheck> {};

TEST_P(ChecksReject, NamingFileAndField) {
  const BadCheck& c = GetParam();
  std::string message = ErrorOf(ParseCheckWith(c.pointer, c.value));
  EXPECT_THAT(message, HasSubstr("s.json: " + c.expected));
}

INSTANTIATE_TEST_SUITE_P(
    Fields, ChecksReject,
    ::testing::Values(
        BadCheck{"/checks", "[]", "checks: expected an object"},
        BadCheck{"/checks/one_status_per_order", "\"SELECT 1\"",
                 "checks.one_status_per_order: expected an object"},
        BadCheck{"/checks/no_loss", R"({"db": "a.db", "sql": "SELECT 1", "says": "x"})",
                 "checks.no_loss: 'no_loss' is a built-in invariant"},
        BadCheck{"/checks/Bad-Name", R"({"db": "a.db", "sql": "SELECT 1", "says": "x"})",
                 "checks.Bad-Name: a check's name is"},
        BadCheck{"/checks/one_status_per_order/db", "\"/abs.db\"",
                 "checks.one_status_per_order.db: expected a path relative"},
        BadCheck{"/checks/one_status_per_order/db", "\"../up.db\"",
                 "checks.one_status_per_order.db: expected a path relative"},
        BadCheck{"/checks/one_status_per_order/sql", "\"SELEC order_id FROM t\"",
                 "checks.one_status_per_order.sql: expected one query (SELECT, WITH or VALUES)"},
        BadCheck{"/checks/one_status_per_order/sql", "\"SELECT order_id FROM t WHERE\"",
                 "checks.one_status_per_order.sql: SQLite cannot prepare it: "},
        BadCheck{"/checks/one_status_per_order/sql", "\"SELECT (1\"",
                 "checks.one_status_per_order.sql: "},
        BadCheck{"/checks/one_status_per_order/sql", "\"SELECT 1; SELECT 2\"",
                 "checks.one_status_per_order.sql: holds more than one statement"},
        BadCheck{"/checks/one_status_per_order/sql", "\"SELECT nosuchfn(1)\"",
                 "checks.one_status_per_order.sql: SQLite cannot prepare it: no such function"},
        BadCheck{"/checks/one_status_per_order/sql", "\"DELETE FROM order_status\"",
                 "checks.one_status_per_order.sql: expected one query"},
        BadCheck{"/checks/one_status_per_order/says", "\"\"",
                 "checks.one_status_per_order.says: must say"},
        BadCheck{"/checks/one_status_per_order/says", "3",
                 "checks.one_status_per_order.says: expected a string"},
        BadCheck{"/checks/one_status_per_order/missing_db", "\"ignore\"",
                 "checks.one_status_per_order.missing_db: expected \"violated\" or \"held\""},
        BadCheck{"/checks/one_status_per_order/after_every_crash", "\"yes\"",
                 "checks.one_status_per_order.after_every_crash: expected true or false"},
        BadCheck{"/checks/one_status_per_order/after_every_crash", "true",
                 "checks.one_status_per_order.after_every_crash: no attempt can crash: the "
                 "scenario lists no "
                 "failpoints and sets no syscall_points"},
        BadCheck{"/checks/one_status_per_order/colour", "\"red\"",
                 "checks.one_status_per_order.colour: unknown field"},
        BadCheck{"/invariants/must_hold/0", "\"one_status_per_ordr\"",
                 "invariants.must_hold[0]: unknown invariant 'one_status_per_ordr' (known: "},
        BadCheck{"/invariants", R"({"must_hold": ["converges"]})",
                 "checks.one_status_per_order: is named in neither invariants.must_hold nor"}));

TEST(Checks, AnUnknownNameListsTheScenariosOwnChecks) {
  std::string message = ErrorOf(ParseCheckWith("/invariants/must_hold/0", "\"nope\""));
  EXPECT_THAT(message, HasSubstr("retry_policy_respected, writes_in_sandbox, "
                                 "server_kill_loses_nothing, one_status_per_order)"));
}

TEST(SqlProblem, AcceptsQueriesOverTablesItCannotSee) {
  // The job's schema exists only in the sandbox: a missing table is not an error here.
  EXPECT_EQ(SqlProblem("SELECT a, b FROM t JOIN u USING(k) WHERE a > 1"), std::nullopt);
  EXPECT_EQ(SqlProblem("  -- why\n WITH x AS (SELECT 1) SELECT * FROM x"), std::nullopt);
  EXPECT_EQ(SqlProblem("/* c */ select 1;"), std::nullopt);
  EXPECT_EQ(SqlProblem("VALUES (1)"), std::nullopt);
}

TEST(SqlProblem, RejectsWritesEvenBehindWith) {
  EXPECT_NE(SqlProblem("WITH x AS (SELECT 1) DELETE FROM sqlite_master"), std::nullopt);
  EXPECT_NE(SqlProblem("UPDATE t SET a = 1"), std::nullopt);
  EXPECT_NE(SqlProblem(std::string("SELECT 1\0 x", 11)), std::nullopt);
}

// A command check (docs/scenarios.md, "Command checks"): its argv with {scenario_dir} and
// {dates} in place and {workdir} left for the run, its timeout and meaning.
TEST(CommandChecks, AreReadWithTheirPlaceholdersPutInPlace) {
  nlohmann::json j = nlohmann::json::parse(kWithCheck);
  j["dates"] = {"2026-11-01", "2026-11-02"};
  j["checks"]["one_status_per_order"] = {
      {"command", {"{scenario_dir}/check.py", "{workdir}/out", "{dates}"}},
      {"timeout_ms", 5000},
      {"says", "the export is incomplete"}};
  auto s = ParseScenario(j.dump(), "/srv/jobs/s.json");
  ASSERT_TRUE(s) << s.error().message;
  const SqlCheck& c = s.value().checks.at("one_status_per_order");
  EXPECT_EQ(c.command, (std::vector<std::string>{"/srv/jobs/check.py", "{workdir}/out",
                                                 "2026-11-01,2026-11-02"}));
  EXPECT_EQ(c.timeout_ms, 5000);
  EXPECT_EQ(c.says, "the export is incomplete");
  EXPECT_TRUE(c.db.empty());
  j["checks"]["one_status_per_order"].erase("timeout_ms");
  EXPECT_EQ(ParseScenario(j.dump(), "s.json").value().checks.at("one_status_per_order").timeout_ms,
            30000);
}

TEST(CommandChecks, TheirMistakesAreExit2NamingTheField) {
  struct Case {
    std::string check, wanted;
  };
  for (const Case& c : std::vector<Case>{
           {R"({"command": []})", "checks.one_status_per_order.command: "},
           {R"({"command": [""]})", "checks.one_status_per_order.command[0]: the program"},
           {R"({"command": ["x", "{biz_date}"]})", "unknown placeholder {biz_date}"},
           {R"({"command": ["x"], "db": "a.db"})",
            "checks.one_status_per_order.db: a check runs a command"},
           {R"({"command": ["x"], "sql": "SELECT 1"})", "checks.one_status_per_order.sql: "},
           {R"({"command": ["x"], "timeout_ms": 0})", "checks.one_status_per_order.timeout_ms: "},
           {R"({"command": ["x"], "shell": true})", "checks.one_status_per_order.shell"},
       }) {
    std::string message = ErrorOf(ParseCheckWith("/checks/one_status_per_order", c.check));
    EXPECT_THAT(message, HasSubstr(c.wanted)) << c.check;
  }
}

// "attach": more databases of the sandbox, by schema name.
TEST(Checks, MayAttachMoreDatabasesByName) {
  auto s = ParseCheckWith("/checks/one_status_per_order/attach", R"({"ledger": "ledger.db"})");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s.value().checks.at("one_status_per_order").attach,
            (std::map<std::string, std::string>{{"ledger", "ledger.db"}}));
  for (const char* bad : {R"({"main": "x.db"})", R"({"Ledger": "x.db"})", R"({"l": "../x.db"})",
                          R"({"l": "orders.db"})", R"({"l": 3})"}) {
    EXPECT_THAT(ErrorOf(ParseCheckWith("/checks/one_status_per_order/attach", bad)),
                HasSubstr("checks.one_status_per_order.attach"))
        << bad;
  }
}

}  // namespace
}  // namespace killpoint
