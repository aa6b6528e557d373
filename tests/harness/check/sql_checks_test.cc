// A scenario's own SQL invariants on hand-made databases: rows returned are violations,
// named in the explanation; a missing db, a bad statement or a write are clear verdicts.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "check_fixture.h"

namespace killpoint {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

SqlCheck OneStatus() {
  return {
      "orders.db",
      "SELECT order_id, biz_date, count(*) AS n FROM order_status GROUP BY order_id HAVING n > 1",
      "an order has more than one status row", false};
}

class SqlCheckTest : public ::testing::Test {
 protected:
  SQLite::Database Db() {
    SQLite::Database db((f_.dir() / "orders.db").string(),
                        SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec(
        "CREATE TABLE IF NOT EXISTS order_status(order_id INTEGER, biz_date TEXT, status TEXT)");
    return db;
  }
  Verdict Run(const SqlCheck& c) { return RunSqlCheck("one_status_per_order", c, f_.dir()); }
  CheckFixture f_;
};

TEST_F(SqlCheckTest, NoRowsMeansHeld) {
  Db().exec("INSERT INTO order_status VALUES (1, '2026-11-01', 'new'), (2, '2026-11-01', 'new')");
  Verdict v = Run(OneStatus());
  EXPECT_TRUE(v.held) << v;
  EXPECT_EQ(v.invariant, "one_status_per_order");
}

TEST_F(SqlCheckTest, ReturnedRowsAreTheViolationNamedColumnByColumn) {
  Db().exec(
      "INSERT INTO order_status VALUES (7, '2026-11-01', 'new'), (7, '2026-11-01', 'settled')");
  Verdict v = Run(OneStatus());
  EXPECT_FALSE(v.held);
  EXPECT_EQ(v.explanation,
            "an order has more than one status row: 1 row in orders.db, order_id=7, "
            "biz_date=2026-11-01, n=2");
}

TEST_F(SqlCheckTest, NamesTheFirstThreeRowsAndCountsTheRest) {
  auto db = Db();
  for (int i = 1; i <= 5; ++i) {
    db.exec("INSERT INTO order_status VALUES (" + std::to_string(i) + ", '2026-11-01', 'a'), (" +
            std::to_string(i) + ", '2026-11-01', 'b')");
  }
  Verdict v = Run(OneStatus());
  EXPECT_THAT(v.explanation, HasSubstr(": 5 rows in orders.db, first 3: order_id=1, "));
  EXPECT_THAT(v.explanation, HasSubstr("; order_id=3, "));
  EXPECT_THAT(v.explanation, Not(HasSubstr("order_id=4")));
}

TEST_F(SqlCheckTest, ValuesArePrintableAndBounded) {
  Db().exec("INSERT INTO order_status VALUES (1, 'a' || char(10) || 'b', 'x'), (1, '" +
            std::string(500, 'z') + "', 'y')");
  Verdict v = Run({"orders.db", "SELECT biz_date, NULL AS absent FROM order_status", "odd", false});
  EXPECT_THAT(v.explanation, HasSubstr("biz_date=a\\x0ab, absent=NULL"));
  EXPECT_EQ(v.explanation.find('\n'), std::string::npos);
  EXPECT_LT(v.explanation.size(), 700u);
}

TEST_F(SqlCheckTest, AMissingDatabaseIsAViolationUnlessDeclaredHeld) {
  Verdict v = Run(OneStatus());
  EXPECT_FALSE(v.held);
  EXPECT_THAT(v.explanation, HasSubstr("orders.db does not exist"));
  EXPECT_FALSE(std::filesystem::exists(f_.dir() / "orders.db"));  // never created by a check
  SqlCheck lenient = OneStatus();
  lenient.missing_db_holds = true;
  EXPECT_TRUE(Run(lenient).held);
}

TEST_F(SqlCheckTest, AStatementTheSchemaRejectsIsAViolationNamingSqlite) {
  Db();
  Verdict v = Run({"orders.db", "SELECT nope FROM order_status", "x", false});
  EXPECT_FALSE(v.held);
  EXPECT_THAT(v.explanation, HasSubstr("cannot run the check on orders.db: no such column: nope"));
}

TEST_F(SqlCheckTest, AWriteIsNeverRun) {
  Db().exec("INSERT INTO order_status VALUES (1, '2026-11-01', 'x')");
  Verdict v = Run({"orders.db", "WITH x AS (SELECT 1) DELETE FROM order_status", "x", false});
  EXPECT_FALSE(v.held);
  EXPECT_THAT(v.explanation, HasSubstr("not a read-only query"));
  SQLite::Database db((f_.dir() / "orders.db").string());
  EXPECT_EQ(db.execAndGet("SELECT count(*) FROM order_status").getInt(), 1);
}

TEST_F(SqlCheckTest, CheckTrialRunsTheScenariosOwnChecksBesideTheBuiltIns) {
  Db().exec("INSERT INTO order_status VALUES (7, '2026-11-01', 'a'), (7, '2026-11-01', 'b')");
  Scenario s;
  s.checks["one_status_per_order"] = OneStatus();
  s.must_hold = {"one_status_per_order"};
  s.expected_violations = {"no_double_publish"};
  Plan plan;
  std::vector<Event> events;
  std::vector<Verdict> verdicts =
      CheckTrial({s, plan, events, f_.dir()}, BuiltinCheckers()).value();
  ASSERT_EQ(verdicts.size(), 2u);
  EXPECT_EQ(verdicts[0].invariant, "one_status_per_order");
  EXPECT_FALSE(verdicts[0].held);
  EXPECT_EQ(verdicts[1].invariant, "no_double_publish");
  EXPECT_TRUE(verdicts[1].held);
}

// "attach": a query over two databases of the sandbox, each by its schema name.
TEST_F(SqlCheckTest, ReadsAttachedDatabasesByTheirNames) {
  Db().exec("INSERT INTO order_status VALUES (1, '2026-11-01', 'new'), (2, '2026-11-02', 'new')");
  {
    SQLite::Database ledger((f_.dir() / "ledger.db").string(),
                            SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    ledger.exec("CREATE TABLE settled(biz_date TEXT); INSERT INTO settled VALUES ('2026-11-01')");
  }
  SqlCheck c = {"orders.db",
                "SELECT DISTINCT biz_date FROM order_status WHERE biz_date NOT IN "
                "(SELECT biz_date FROM ledger.settled)",
                "a date with orders is not settled", false};
  c.attach = {{"ledger", "ledger.db"}};
  Verdict v = Run(c);
  EXPECT_FALSE(v.held);
  EXPECT_EQ(v.explanation,
            "a date with orders is not settled: 1 row in orders.db, biz_date=2026-11-02");
  c.attach = {{"ledger", "missing.db"}};
  v = Run(c);
  EXPECT_FALSE(v.held);
  EXPECT_THAT(v.explanation, HasSubstr("missing.db does not exist"));
  EXPECT_FALSE(std::filesystem::exists(f_.dir() / "missing.db"));
}

// A command check (check/command_checks.cc): exit 0 held with its stdout, another exit
// violated with its stdout and stderr, a timeout violated, a missing program an Error.
TEST_F(SqlCheckTest, ACommandHoldsOnExitZeroAndExplainsItsFailure) {
  SqlCheck c;
  c.says = "the export is incomplete";
  c.timeout_ms = 10000;
  c.command = {"/bin/sh", "-c", "test \"$KILLPOINT_WORKDIR\" = \"$(pwd)\" && echo fine"};
  auto v = RunCommandCheck("export_ok", c, f_.dir());
  ASSERT_TRUE(v) << v.error().message;
  EXPECT_TRUE(v.value().held) << v.value();
  EXPECT_EQ(v.value().explanation, "fine");
  c.command = {"/bin/sh", "-c", "echo 2 rows missing; echo detail >&2; exit 3", "{workdir}"};
  v = RunCommandCheck("export_ok", c, f_.dir());
  ASSERT_TRUE(v);
  EXPECT_FALSE(v.value().held);
  EXPECT_EQ(v.value().explanation,
            "the export is incomplete: the command exited with code 3: 2 rows missing; stderr: "
            "detail");
  // Its output goes beside the sandbox, and is gone after.
  EXPECT_TRUE(std::filesystem::is_empty(f_.dir()));
  c.command = {"/bin/sleep", "10"};
  c.timeout_ms = 200;
  v = RunCommandCheck("export_ok", c, f_.dir());
  ASSERT_TRUE(v);
  EXPECT_FALSE(v.value().held);
  EXPECT_THAT(v.value().explanation, HasSubstr("did not finish within 200 ms and was killed"));
  c.command = {"/no/such/program"};
  EXPECT_FALSE(RunCommandCheck("export_ok", c, f_.dir()));
}

}  // namespace
}  // namespace killpoint
