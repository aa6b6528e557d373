#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>

#include "check_fixture.h"

namespace killpoint {
namespace {

using ::testing::HasSubstr;

TEST(OneRowPerDate, HoldsWithOneRowPerDate) {
  CheckFixture f;
  f.SettleDb().exec("INSERT INTO daily_settlement VALUES ('2026-11-01', '2026-11-01', 350, 2, 'x')");
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
  f.SettleDb().exec("INSERT INTO daily_settlement VALUES ('2026-11-01', '2026-11-01', 350, 2, 'x'), ('2026-11-02', '2026-11-02', 40, 1, 'x')");
  EXPECT_TRUE(f.Check("amount_matches_source").held) << f.Check("amount_matches_source");
}

TEST(AmountMatchesSource, CatchesADoubledIncrementWithTheEvidence) {
  CheckFixture f;
  f.SettleDb().exec("INSERT INTO daily_settlement VALUES ('2026-11-01', '2026-11-01', 700, 4, 'x')");
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
  EXPECT_THAT(v.explanation, HasSubstr("2026-11-02: the job exited 0 but daily_settlement has no row"));
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
  f.SettleDb().exec("INSERT INTO daily_settlement VALUES ('2026-11-01', '2026-11-01', 350, 2, 'x')");
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
