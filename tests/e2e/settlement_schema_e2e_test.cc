// Issue 17: the settlement invariants on a job of another schema, end to end. A Python job
// (tests/fixtures/settlement-schema/job.py) writes settlement(day, total) from sales(day,
// cents). Checked with the default schema it is the scenario's mistake, exit 2 naming what is
// missing and the field to set, never a must-hold violation; with check.settlement set, the
// invariants hold on the correct job and catch the buggy one.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "killpoint_cli.h"

namespace killpoint::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

CliRun RunSchema(const std::string& scenario) {
  return RunKillpoint(
      "schema-" + scenario,
      {"run", "tests/fixtures/settlement-schema/" + scenario + ".json", "--jobs", "1"});
}

TEST(SettlementSchema, UnconfiguredIsExit2NamingTheTableItsColumnsAndTheField) {
  CliRun r = RunSchema("unconfigured");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_THAT(
      r.err,
      HasSubstr("tests/fixtures/settlement-schema/unconfigured.json: check.settlement.table: "));
  EXPECT_THAT(
      r.err,
      HasSubstr("reads columns biz_date, settle_key of table 'daily_settlement' in settle.db"));
  EXPECT_THAT(r.err, HasSubstr("tables there: sales, settlement"));
  EXPECT_THAT(r.err + r.out, Not(HasSubstr("VIOLATED")));
}

TEST(SettlementSchema, ATableWithoutTheColumnIsExit2NamingTheColumn) {
  CliRun r = RunSchema("table-only");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_THAT(
      r.err,
      HasSubstr(
          "table-only.json: check.settlement.date_column: one_row_per_date reads the business "
          "date from column 'biz_date' of table 'settlement' in settle.db, which has no such "
          "column (its columns: day, total); set check.settlement.date_column"));
}

TEST(SettlementSchema, ConfiguredTheInvariantsHoldOnTheCorrectJob) {
  CliRun r = RunSchema("replace");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  for (const char* name : {"one_row_per_date", "amount_matches_source", "converges"}) {
    nlohmann::json i = Invariant(r.Results(), "schema/replace", name);
    EXPECT_EQ(i["status"], "held") << name << ": " << i.dump();
    EXPECT_EQ(i["held"], 2) << name;
  }
}

TEST(SettlementSchema, ConfiguredTheyCatchTheBuggyJob) {
  CliRun r = RunSchema("insert");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  nlohmann::json i = Invariant(r.Results(), "schema/insert", "one_row_per_date");
  EXPECT_EQ(i["violated"], 2) << i.dump();
  EXPECT_THAT(i["examples"][0]["explanation"].get<std::string>(),
              HasSubstr("2026-11-01 has 2 rows in settlement (keys rowid 1, rowid 2)"));
  EXPECT_EQ(Invariant(r.Results(), "schema/insert", "amount_matches_source")["status"], "held");
}

}  // namespace
}  // namespace killpoint::testing
