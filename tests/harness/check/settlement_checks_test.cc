#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include "check_fixture.h"
#include "history/event_registry.h"

namespace killpoint {
namespace {

using ::testing::HasSubstr;

TEST(OneRowPerDate, HoldsWithOneRowPerDate) {
  CheckFixture f;
  f.SettleDb().exec(
      "INSERT INTO daily_settlement VALUES ('2026-11-01', '2026-11-01', 350, 2, 'x')");
  EXPECT_TRUE(f.Check("one_row_per_date").held);
}

TEST(OneRowPerDate, NamesTheDateAndTheKeysOfTheDuplicates) {
  CheckFixture f;
  f.SettleDb().exec(
      "INSERT INTO daily_settlement VALUES ('2026-11-01@1', '2026-11-01', 350, 2, 'x'), "
      "('2026-11-01@2', '2026-11-01', 350, 2, 'y')");
  Verdict v = f.Check("one_row_per_date");
  EXPECT_FALSE(v.held);
  EXPECT_THAT(v.explanation, HasSubstr("2026-11-01 has 2 rows"));
  EXPECT_THAT(v.explanation, HasSubstr("2026-11-01@1"));
}

TEST(AmountMatchesSource, HoldsForAFullRecompute) {
  CheckFixture f;
  f.SettleDb().exec(
      "INSERT INTO daily_settlement VALUES ('2026-11-01', '2026-11-01', 350, 2, 'x'), "
      "('2026-11-02', '2026-11-02', 40, 1, 'x')");
  EXPECT_TRUE(f.Check("amount_matches_source").held) << f.Check("amount_matches_source");
}

TEST(AmountMatchesSource, CatchesADoubledIncrementWithTheEvidence) {
  CheckFixture f;
  f.SettleDb().exec(
      "INSERT INTO daily_settlement VALUES ('2026-11-01', '2026-11-01', 700, 4, 'x')");
  Verdict v = f.Check("amount_matches_source");
  EXPECT_FALSE(v.held);
  EXPECT_THAT(v.explanation, HasSubstr("2026-11-01"));
  EXPECT_THAT(v.explanation, HasSubstr("700 cents over 4 orders"));
  EXPECT_THAT(v.explanation, HasSubstr("2 orders of the date sum to 350 cents"));
}

TEST(AmountMatchesSource, CatchesASuccessWithoutARow) {
  CheckFixture f;
  f.SettleDb();
  f.Exit("2026-11-02", 0);
  Verdict v = f.Check("amount_matches_source");
  EXPECT_FALSE(v.held);
  EXPECT_THAT(v.explanation,
              HasSubstr("2026-11-02: the job exited 0 but daily_settlement has no row"));
}

TEST(AmountMatchesSource, ReportsAnUnreadableDatabaseAsAViolation) {
  CheckFixture f;
  f.WriteFile("settle.db", "this is not a database, it is just forty-odd bytes of text");
  Verdict v = f.Check("amount_matches_source");
  EXPECT_FALSE(v.held);
  EXPECT_THAT(v.explanation, HasSubstr("cannot read settle.db"));
}

}  // namespace
}  // namespace killpoint

namespace killpoint {
namespace {

// A job killed in the middle of a big transaction leaves uncommitted pages in the database
// file and a hot journal beside it. The checkers must see the rolled-back database, as the
// job's next start would, not an error and not the uncommitted rows.
TEST(SettlementCheckers, SeeTheDatabaseAsRolledBackAfterAKillMidTransaction) {
  CheckFixture f;
  f.SettleDb().exec(
      "INSERT INTO daily_settlement VALUES ('2026-11-01', '2026-11-01', 350, 2, 'x')");
  pid_t child = ::fork();
  if (child == 0) {
    SQLite::Database db((f.dir() / "settle.db").string(), SQLite::OPEN_READWRITE);
    db.exec("PRAGMA cache_size = 1");  // spill uncommitted pages into the file early
    db.exec("BEGIN");
    for (int i = 0; i < 2000; ++i) {
      db.exec("INSERT INTO daily_settlement VALUES ('dup" + std::to_string(i) +
              "', '2026-11-01', 1, 1, 'uncommitted padding padding padding padding')");
    }
    ::kill(::getpid(), SIGKILL);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  ASSERT_TRUE(std::filesystem::exists(f.dir() / "settle.db-journal")) << "no hot journal was left";
  EXPECT_TRUE(f.Check("one_row_per_date").held) << f.Check("one_row_per_date");
  EXPECT_TRUE(f.Check("amount_matches_source").held) << f.Check("amount_matches_source");
  EXPECT_TRUE(f.Check("state_readable").held) << f.Check("state_readable");
}

}  // namespace
}  // namespace killpoint

namespace killpoint {
namespace {

// A job of its own schema (issue 17): settlement(day, total) over sales(day, cents).
class OtherSchema : public ::testing::Test {
 protected:
  void SetUp() override {
    SQLite::Database db((f_.dir() / "settle.db").string(),
                        SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("CREATE TABLE sales(id INTEGER PRIMARY KEY, day TEXT, cents INTEGER)");
    db.exec("CREATE TABLE settlement(day TEXT, total INTEGER)");
    db.exec(
        "INSERT INTO sales(day, cents) VALUES ('2026-11-01', 100), ('2026-11-01', 250), "
        "('2026-11-02', 40)");
    f_.scenario().file = "scenarios/mine.json";
  }
  void Configure() {
    SettlementSchema& s = f_.scenario().check.settlement;
    s.table = "settlement";
    s.date_column = "day";
    s.amount_column = "total";
    s.count_column = "";
    s.key_column = "";
    s.source_table = "sales";
    s.source_date_column = "day";
    s.source_amount_column = "cents";
  }
  void Exec(const std::string& sql) {
    SQLite::Database((f_.dir() / "settle.db").string(), SQLite::OPEN_READWRITE).exec(sql);
  }

  CheckFixture f_;
};

TEST_F(OtherSchema, UnconfiguredIsTheScenariosMistakeNamingTheFieldAndTheColumns) {
  f_.Exit("2026-11-01", 0);
  for (const char* name : {"one_row_per_date", "amount_matches_source"}) {
    Result<Verdict> r = f_.TryCheck(name);
    ASSERT_FALSE(r) << r.value();
    EXPECT_EQ(r.error().kind, ErrorKind::kBadInput);
    EXPECT_THAT(r.error().message, HasSubstr("scenarios/mine.json: check.settlement.table: "));
    EXPECT_THAT(r.error().message, HasSubstr("columns biz_date, settle_key"));
    EXPECT_THAT(r.error().message, HasSubstr("table 'daily_settlement' in settle.db"));
    EXPECT_THAT(r.error().message, HasSubstr("tables there: sales, settlement"));
  }
}

TEST_F(OtherSchema, AMissingColumnIsTheScenariosMistakeEvenBeforeTheJobFinished) {
  Configure();
  f_.scenario().check.settlement.amount_column = "amount_cents";
  Result<Verdict> r = f_.TryCheck("amount_matches_source");
  ASSERT_FALSE(r) << r.value();
  EXPECT_THAT(r.error().message,
              HasSubstr("check.settlement.amount_column: amount_matches_source reads the settled "
                        "amount from column 'amount_cents' of table 'settlement' in settle.db, "
                        "which has no such column (its columns: day, total)"));
}

TEST_F(OtherSchema, ATableNotWrittenYetIsNoMistakeWhileTheJobHasNotFinished) {
  f_.Exit("2026-11-01", 137);
  Result<Verdict> r = f_.TryCheck("one_row_per_date");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r.value().held);
}

TEST_F(OtherSchema, ConfiguredTheInvariantsHoldAndCatchOnThatSchema) {
  Configure();
  f_.Exit("2026-11-01", 0);
  Exec("INSERT INTO settlement VALUES ('2026-11-01', 350), ('2026-11-02', 40)");
  EXPECT_TRUE(f_.Check("one_row_per_date").held) << f_.Check("one_row_per_date");
  EXPECT_TRUE(f_.Check("amount_matches_source").held) << f_.Check("amount_matches_source");
  Exec("INSERT INTO settlement VALUES ('2026-11-01', 350)");
  Verdict twice = f_.Check("one_row_per_date");
  EXPECT_FALSE(twice.held);
  EXPECT_THAT(twice.explanation,
              HasSubstr("2026-11-01 has 2 rows in settlement (keys rowid 1, rowid 3)"));
  Exec(
      "DELETE FROM settlement WHERE rowid = 3; UPDATE settlement SET total = 700 WHERE day = "
      "'2026-11-01'");
  Verdict wrong = f_.Check("amount_matches_source");
  EXPECT_FALSE(wrong.held);
  EXPECT_THAT(wrong.explanation,
              HasSubstr("2026-11-01: settlement row 'rowid 1' says 700, but the 2 sales rows of "
                        "the date sum to 350"));
}

TEST(SettlementCheckers, AMissingDatabaseIsTheScenariosMistakeOnceTheJobFinished) {
  CheckFixture f;
  f.Exit("2026-11-01", 137);
  EXPECT_TRUE(f.Check("one_row_per_date").held);  // killed before it created it
  f.Exit("2026-11-01", 0);
  Result<Verdict> r = f.TryCheck("one_row_per_date");
  ASSERT_FALSE(r) << r.value();
  EXPECT_THAT(
      r.error().message,
      HasSubstr("check.db: one_row_per_date reads settle.db, which the job did not create"));
}

}  // namespace
}  // namespace killpoint

namespace killpoint {
namespace {

// commits_survive reads jobs/sqlite's commits(biz_date, attempt): on a job without it, exit 2
// pointing at the scenario's own checks, not a violation.
TEST(CommitsSurvive, AJobWithoutTheCommitsTableIsTheScenariosMistake) {
  CheckFixture f;
  f.scenario().file = "s.json";
  f.scenario().must_hold = {"commits_survive"};
  f.SettleDb();
  f.history().SetContext({"2026-11-01", 1, 1});
  f.history().Add(event::Failpoint::kType, {{"point", "after_commit"}});
  f.Exit("2026-11-01", 0);
  Result<Verdict> r = f.TryCheck("commits_survive");
  ASSERT_FALSE(r) << r.value();
  EXPECT_THAT(r.error().message,
              HasSubstr("s.json: invariants.must_hold: commits_survive reads table "
                        "commits(biz_date, attempt) in settle.db"));
  SQLite::Database((f.dir() / "settle.db").string(), SQLite::OPEN_READWRITE)
      .exec(
          "CREATE TABLE commits(biz_date TEXT, attempt INTEGER); INSERT INTO commits VALUES "
          "('2026-11-01', 1)");
  EXPECT_TRUE(f.Check("commits_survive").held) << f.Check("commits_survive");
}

}  // namespace
}  // namespace killpoint
