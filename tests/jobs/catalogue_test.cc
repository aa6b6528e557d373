// kp-catalogue end to end: each pattern's correct form and its bug, as real processes on a
// real SQLite file, rerun the way a scheduler reruns, and crashed at a failpoint by a fake
// controller. The lock's two-instance behaviours are in catalogue_lock_test.cc.
#include <SQLiteCpp/SQLiteCpp.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "fake_controller.h"
#include "fake_downstream.h"
#include "subprocess.h"
#include "temp_dir.h"

namespace killpoint::testing {
namespace {

using ::testing::HasSubstr;

constexpr const char* kDate = "2026-11-05";  // 3 + 5 % 3 = 5 orders

class CatalogueTest : public ::testing::Test {
 protected:
  // kp-catalogue PATTERN --variant VARIANT for kDate; kill_at: crash there (fake controller).
  ProcessResult Run(const std::string& pattern, const std::string& variant,
                    const std::string& kill_at = "", std::vector<std::string> extra = {}) {
    FakeController controller(kill_at);
    SpawnSpec spec{
        {std::string(KILLPOINT_BIN_DIR) + "/kp-catalogue", pattern, "--variant", variant},
        {{"KILLPOINT_WORKDIR", dir_.path()},
         {"KILLPOINT_BIZ_DATE", kDate},
         {"KILLPOINT_CTL", controller.address()},
         {"KILLPOINT_DOWNSTREAM", downstream_.url()}},
        dir_.path()};
    spec.argv.insert(spec.argv.end(), extra.begin(), extra.end());
    return RunProcess(spec);
  }
  ProcessResult Killed(const std::string& pattern, const std::string& variant,
                       const std::string& at) {
    ProcessResult r = Run(pattern, variant, at);
    EXPECT_EQ(r.term_signal, SIGKILL) << r;
    return r;
  }
  void Ok(const std::string& pattern, const std::string& variant) {
    ProcessResult r = Run(pattern, variant);
    EXPECT_EQ(r.exit_code, 0) << r;
  }
  int64_t Count(const std::string& db, const std::string& sql) {
    SQLite::Database d(dir_.File(db), SQLite::OPEN_READWRITE);  // may roll back a hot journal
    return d.execAndGet(sql).getInt64();
  }
  std::vector<std::string> IdempotencyKeys(const std::string& key) {
    std::vector<std::string> out;
    for (const auto& r : downstream_.requests()) {
      if (r.body.is_object() && r.body.value("key", "") == key) out.push_back(r.idempotency_key);
    }
    return out;
  }

  TempDir dir_;
  FakeDownstream downstream_;
};

TEST_F(CatalogueTest, OrderStatusUpsertKeepsOneRowPerOrderAcrossACrashAndARerun) {
  Killed("order-status", "upsert", "after_insert");
  Ok("order-status", "upsert");
  Ok("order-status", "upsert");
  EXPECT_EQ(Count("order-status.db", "SELECT count(*) FROM order_status"), 5);
  EXPECT_EQ(Count("order-status.db", "SELECT count(*) FROM orders"), 5);
}

TEST_F(CatalogueTest, OrderStatusInsertAddsARowPerRerun) {
  Killed("order-status", "insert", "after_insert");  // one row committed
  Ok("order-status", "insert");
  EXPECT_EQ(Count("order-status.db", "SELECT count(*) FROM order_status"), 6);
  EXPECT_EQ(Count("order-status.db", "SELECT count(DISTINCT order_id) FROM order_status"), 5);
}

TEST_F(CatalogueTest, InventoryLedgerDecrementsOnceWhateverTheReruns) {
  Killed("inventory", "ledger", "after_commit");
  Ok("inventory", "ledger");
  Ok("inventory", "ledger");
  int64_t shipped = Count("inventory.db", "SELECT sum(qty) FROM shipments");
  EXPECT_EQ(Count("inventory.db", "SELECT sum(initial_qty - qty) FROM stock"), shipped);
  EXPECT_EQ(Count("inventory.db", "SELECT count(*) FROM stock_log"), 5);
}

TEST_F(CatalogueTest, InventoryCrashBeforeCommitTakesNothing) {
  Killed("inventory", "no-key", "after_decrement");
  EXPECT_EQ(Count("inventory.db", "SELECT sum(initial_qty - qty) FROM stock"), 0);
  EXPECT_EQ(Count("inventory.db", "SELECT count(*) FROM stock_log"), 0);
}

TEST_F(CatalogueTest, InventoryWithoutAKeyDecrementsAgainOnARerun) {
  Ok("inventory", "no-key");
  Ok("inventory", "no-key");
  int64_t shipped = Count("inventory.db", "SELECT sum(qty) FROM shipments");
  EXPECT_EQ(Count("inventory.db", "SELECT sum(initial_qty - qty) FROM stock"), 2 * shipped);
  EXPECT_EQ(Count("inventory.db", "SELECT count(*) FROM stock_log"), 10);
}

TEST_F(CatalogueTest, RefundRetriesWithTheOrdersKey) {
  Killed("refund", "order-key", "after_publish");
  Ok("refund", "order-key");
  std::string first = "refund-" + std::string("2026110501");
  EXPECT_EQ(IdempotencyKeys(first), (std::vector<std::string>{first, first}));
  EXPECT_EQ(downstream_.deliveries(first), 1);  // the fake deduplicates by Idempotency-Key
  EXPECT_EQ(Count("refund.db", "SELECT count(*) FROM refunds"), 5);
  Ok("refund", "order-key");  // all recorded: nothing is sent again
  EXPECT_EQ(IdempotencyKeys(first).size(), 2u);
}

TEST_F(CatalogueTest, RefundWithAFreshUuidSendsANewKeyOnTheRetry) {
  Killed("refund", "uuid", "after_publish");
  Ok("refund", "uuid");
  std::vector<std::string> keys = IdempotencyKeys("refund-2026110501");
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_NE(keys[0], keys[1]);
  EXPECT_THAT(keys[0], ::testing::MatchesRegex(
                           "[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"));
  // The fake deduplicates by Idempotency-Key: two keys, two refunds.
  EXPECT_EQ(downstream_.deliveries(keys[0]), 1);
  EXPECT_EQ(downstream_.deliveries(keys[1]), 1);
}

TEST_F(CatalogueTest, RefundWithoutADownstreamFailsRetryably) {
  FakeDownstream failing(FakeDownstream::Mode::kFail);
  SpawnSpec spec{{std::string(KILLPOINT_BIN_DIR) + "/kp-catalogue", "refund", "--variant",
                  "order-key", "--downstream", failing.url()},
                 {{"KILLPOINT_WORKDIR", dir_.path()}, {"KILLPOINT_BIZ_DATE", kDate}},
                 dir_.path()};
  ProcessResult r = RunProcess(spec);
  EXPECT_EQ(r.exit_code, 1) << r;
  EXPECT_THAT(r.err, HasSubstr("HTTP 500"));
  EXPECT_EQ(Count("refund.db", "SELECT count(*) FROM refunds"), 0);
}

TEST_F(CatalogueTest, ConditionalTransitionFulfilsOnceAndLeavesACrashedClaimInProcessing) {
  Killed("order-state", "conditional", "after_publish");
  Ok("order-state", "conditional");
  EXPECT_EQ(IdempotencyKeys("fulfil-2026110501").size(), 1u);
  EXPECT_EQ(Count("order-state.db", "SELECT count(*) FROM orders WHERE status = 'processing'"), 1);
  EXPECT_EQ(Count("order-state.db", "SELECT count(*) FROM orders WHERE status = 'completed'"), 4);
}

TEST_F(CatalogueTest, ReadThenWriteFulfilsAgainAfterACrash) {
  Killed("order-state", "read-then-write", "after_publish");
  Ok("order-state", "read-then-write");
  EXPECT_EQ(IdempotencyKeys("fulfil-2026110501").size(), 2u);
  EXPECT_EQ(Count("order-state.db", "SELECT count(*) FROM orders WHERE status = 'completed'"), 5);
}

TEST_F(CatalogueTest, QueueAckAfterWithDedupeHasOneEffectPerMessage) {
  Killed("queue", "ack-after-dedupe", "before_ack");
  Ok("queue", "ack-after-dedupe");
  EXPECT_EQ(Count("queue.db", "SELECT count(*) FROM effects"), 5);
  EXPECT_EQ(Count("queue.db", "SELECT count(*) FROM messages WHERE acked = 0"), 0);
}

TEST_F(CatalogueTest, QueueAckAfterWithoutDedupeRepeatsTheRedeliveredEffect) {
  Killed("queue", "ack-after", "before_ack");
  Ok("queue", "ack-after");
  EXPECT_EQ(Count("queue.db", "SELECT count(*) FROM effects"), 6);
  EXPECT_EQ(Count("queue.db", "SELECT count(DISTINCT msg_id) FROM effects"), 5);
}

TEST_F(CatalogueTest, QueueAckBeforeLosesTheMessageItWasProcessing) {
  Killed("queue", "ack-before", "after_ack");
  Ok("queue", "ack-before");
  EXPECT_EQ(Count("queue.db", "SELECT count(*) FROM effects"), 4);
  EXPECT_EQ(Count("queue.db", "SELECT count(*) FROM messages WHERE acked = 0"), 0);
}

TEST_F(CatalogueTest, SeedingIsDeterministicAndIdempotent) {
  Ok("queue", "ack-after-dedupe");
  Ok("queue", "ack-after-dedupe");
  EXPECT_EQ(Count("queue.db", "SELECT count(*) FROM messages"), 5);
  EXPECT_EQ(Count("queue.db", "SELECT count(*) FROM effects"), 5);
}

TEST_F(CatalogueTest, BadInputIsAUsageError) {
  EXPECT_EQ(Run("queue", "ack-sideways").exit_code, 2);
  SpawnSpec spec{
      {std::string(KILLPOINT_BIN_DIR) + "/kp-catalogue", "queue", "--variant", "ack-after"},
      {{"KILLPOINT_WORKDIR", dir_.path()}, {"KILLPOINT_BIZ_DATE", "2026-02-30"}},
      dir_.path()};
  ProcessResult r = RunProcess(spec);
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_THAT(r.err, HasSubstr("bad or missing business date"));
  spec.env = {{"KILLPOINT_BIZ_DATE", kDate}};
  r = RunProcess(spec);
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_THAT(r.err, HasSubstr("no database"));
}

}  // namespace
}  // namespace killpoint::testing
