// kp-settle end to end: the real binary on a real SQLite file, run twice the way a scheduler
// reruns a job, and once crashed at a failpoint by a fake controller.
#include <SQLiteCpp/SQLiteCpp.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <string>
#include <vector>

#include "fake_controller.h"
#include "subprocess.h"
#include "temp_dir.h"

namespace killpoint::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr const char* kDate = "2026-11-05";

struct Row {
  std::string key;
  int64_t amount_cents;
  int64_t order_count;
};

class KpSettleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ProcessResult init = Settle({"--init", "--dates", "2026-11-05,2026-11-06"});
    ASSERT_EQ(init.exit_code, 0) << init;
  }

  ProcessResult Settle(std::vector<std::string> args,
                       std::map<std::string, std::string> env = {}) const {
    SpawnSpec spec{{std::string(KILLPOINT_BIN_DIR) + "/kp-settle", "--db", db_}, env, dir_.path()};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    return RunProcess(spec);
  }
  ProcessResult SettleDate(const std::string& strategy) const {
    return Settle({"--biz-date", kDate, "--strategy", strategy});
  }

  // The orders' totals for kDate, read straight from the source table.
  std::pair<int64_t, int64_t> SourceTotals() const {
    SQLite::Database db(db_, SQLite::OPEN_READWRITE);  // May roll back a hot journal.
    SQLite::Statement q(db, "SELECT SUM(amount_cents), COUNT(*) FROM orders WHERE biz_date = ?");
    q.bind(1, kDate);
    q.executeStep();
    return {q.getColumn(0).getInt64(), q.getColumn(1).getInt64()};
  }

  std::vector<Row> Settlements() const {
    SQLite::Database db(db_, SQLite::OPEN_READWRITE);  // May roll back a hot journal.
    SQLite::Statement q(db,
                        "SELECT settle_key, amount_cents, order_count FROM daily_settlement"
                        " WHERE biz_date = ? ORDER BY settle_key");
    q.bind(1, kDate);
    std::vector<Row> rows;
    while (q.executeStep()) {
      rows.push_back(
          {q.getColumn(0).getString(), q.getColumn(1).getInt64(), q.getColumn(2).getInt64()});
    }
    return rows;
  }

  TempDir dir_;
  std::string db_ = dir_.File("settle.db");
};

TEST_F(KpSettleTest, InitCreatesDeterministicOrdersAndIsIdempotent) {
  auto [amount, count] = SourceTotals();
  EXPECT_EQ(count, 3 + 5 % 4);
  EXPECT_GT(amount, 0);
  ProcessResult again = Settle({"--init", "--dates", kDate});
  ASSERT_EQ(again.exit_code, 0) << again;
  EXPECT_EQ(SourceTotals(), std::make_pair(amount, count));
}

TEST_F(KpSettleTest, UpsertTwiceLeavesOneRowWithTheSourceSum) {
  for (int run = 0; run < 2; ++run) {
    ProcessResult result = SettleDate("upsert");
    ASSERT_EQ(result.exit_code, 0) << result;
    EXPECT_THAT(result.out, StartsWith("settled 2026-11-05 strategy=upsert key=2026-11-05"));
  }
  auto [amount, count] = SourceTotals();
  std::vector<Row> rows = Settlements();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].key, kDate);
  EXPECT_EQ(rows[0].amount_cents, amount);
  EXPECT_EQ(rows[0].order_count, count);
}

TEST_F(KpSettleTest, IncrementTwiceDoublesTheAmount) {
  ASSERT_EQ(SettleDate("increment").exit_code, 0);
  ASSERT_EQ(SettleDate("increment").exit_code, 0);
  auto [amount, count] = SourceTotals();
  std::vector<Row> rows = Settlements();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].amount_cents, 2 * amount);
  EXPECT_EQ(rows[0].order_count, 2 * count);
}

TEST_F(KpSettleTest, TimestampKeyTwiceLeavesTwoRows) {
  ASSERT_EQ(SettleDate("timestamp-key").exit_code, 0);
  ASSERT_EQ(SettleDate("timestamp-key").exit_code, 0);
  std::vector<Row> rows = Settlements();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_THAT(rows[0].key, StartsWith("2026-11-05@"));
  EXPECT_THAT(rows[1].key, StartsWith("2026-11-05@"));
  EXPECT_NE(rows[0].key, rows[1].key);
}

TEST_F(KpSettleTest, InsertRerunFailsOnTheUniqueKey) {
  ProcessResult first = SettleDate("insert");
  ASSERT_EQ(first.exit_code, 0) << first;
  ProcessResult second = SettleDate("insert");
  EXPECT_EQ(second.exit_code, 1) << second;
  EXPECT_THAT(second.err, HasSubstr("UNIQUE"));
  EXPECT_EQ(Settlements().size(), 1u);
}

TEST_F(KpSettleTest, BadDatesAreUsageErrors) {
  for (const char* date : {"2026-02-30", "2026-11-5", "20261105", "2026-13-01", "yesterday"}) {
    ProcessResult result = Settle({"--biz-date", date, "--strategy", "upsert"});
    EXPECT_EQ(result.exit_code, 2) << date << " " << result;
    EXPECT_THAT(result.err, HasSubstr("bad business date")) << date;
  }
  EXPECT_TRUE(Settlements().empty());
}

TEST_F(KpSettleTest, MissingDateIsAUsageError) {
  ProcessResult result = Settle({"--strategy", "upsert"});
  EXPECT_EQ(result.exit_code, 2) << result;
  EXPECT_THAT(result.err, HasSubstr("no business date"));
}

TEST_F(KpSettleTest, UnknownStrategyIsAUsageError) {
  ProcessResult result = Settle({"--biz-date", kDate, "--strategy", "merge"});
  EXPECT_EQ(result.exit_code, 2) << result;
  EXPECT_THAT(result.err, HasSubstr("merge"));
}

TEST_F(KpSettleTest, DefaultsComeFromTheJobContract) {
  SpawnSpec spec{{std::string(KILLPOINT_BIN_DIR) + "/kp-settle", "--strategy", "upsert"},
                 {{"KILLPOINT_WORKDIR", dir_.path()}, {"KILLPOINT_BIZ_DATE", kDate}},
                 dir_.path()};
  ProcessResult result = RunProcess(spec);
  ASSERT_EQ(result.exit_code, 0) << result;
  EXPECT_EQ(Settlements().size(), 1u);
}

TEST_F(KpSettleTest, MissingDatabaseIsAFailure) {
  ProcessResult result =
      RunProcess(SpawnSpec{{std::string(KILLPOINT_BIN_DIR) + "/kp-settle", "--db",
                            dir_.File("absent.db"), "--biz-date", kDate, "--strategy", "upsert"},
                           {},
                           dir_.path()});
  EXPECT_EQ(result.exit_code, 1) << result;
  EXPECT_THAT(result.err, HasSubstr("cannot open"));
}

TEST_F(KpSettleTest, HitsItsFailpointsInOrder) {
  FakeController controller;
  ProcessResult result = Settle({"--biz-date", kDate, "--strategy", "upsert"},
                                {{"KILLPOINT_CTL", controller.address()}});
  ASSERT_EQ(result.exit_code, 0) << result;
  EXPECT_THAT(controller.hits(), ElementsAre("before_write", "before_commit", "after_commit"));
}

TEST_F(KpSettleTest, KillBeforeCommitWritesNothingAndTheRerunSettles) {
  {
    FakeController controller("before_commit");
    ProcessResult killed = Settle({"--biz-date", kDate, "--strategy", "increment"},
                                  {{"KILLPOINT_CTL", controller.address()}});
    ASSERT_EQ(killed.term_signal, SIGKILL) << killed;
  }
  EXPECT_TRUE(Settlements().empty());
  ASSERT_EQ(SettleDate("increment").exit_code, 0);
  std::vector<Row> rows = Settlements();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].amount_cents, SourceTotals().first);
}

}  // namespace
}  // namespace killpoint::testing
