// Refund with an idempotency key. For each refund request of the date that is not recorded as
// done: POST /publish (the payment provider) with an Idempotency-Key, then record it.
// order-key (correct): the key is derived from the order ("refund-<order_id>"), so a retry
// after a crash or a lost answer sends the same key and a deduplicating provider refunds once.
// uuid (bug): a fresh UUID per call; every retry is a new refund to the provider.
// Failpoints: before_publish, after_publish, after_record (each per order).
#include <killpoint/failpoint.h>

#include <iostream>

#include "catalogue/catalogue.h"

namespace killpoint::catalogue {
namespace {

constexpr const char* kRefundSchema = R"sql(
CREATE TABLE IF NOT EXISTS refund_requests(order_id INTEGER PRIMARY KEY, biz_date TEXT NOT NULL,
  amount_cents INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS refunds(order_id INTEGER PRIMARY KEY, biz_date TEXT NOT NULL,
  idempotency_key TEXT NOT NULL, delivery_id INTEGER NOT NULL);
)sql";

}  // namespace

int RunRefund(const Context& ctx) {
  bool order_key = ctx.variant == "order-key";
  SQLite::Database db = OpenDb(ctx.db);
  db.exec(kRefundSchema);
  SeedOrders(db, "refund_requests", ctx.biz_date, false);
  SQLite::Statement todo(
      db,
      "SELECT r.order_id, r.amount_cents FROM refund_requests r WHERE r.biz_date = ?1 AND"
      " NOT EXISTS (SELECT 1 FROM refunds f WHERE f.order_id = r.order_id) ORDER BY r.order_id");
  todo.bind(1, ctx.biz_date);
  std::vector<std::pair<int64_t, int64_t>> pending;
  while (todo.executeStep())
    pending.emplace_back(todo.getColumn(0).getInt64(), todo.getColumn(1).getInt64());
  SQLite::Statement record(db,
                           "INSERT INTO refunds(order_id, biz_date, idempotency_key, delivery_id) "
                           "VALUES (?1, ?2, ?3, ?4)");
  for (const auto& [order_id, amount] : pending) {
    std::string key = "refund-" + std::to_string(order_id);
    std::string idempotency_key = order_key ? key : NewUuid();
    failpoint("before_publish");
    int64_t delivery = Publish(ctx, key, idempotency_key,
                               R"({"order_id":)" + std::to_string(order_id) +
                                   R"(,"amount_cents":)" + std::to_string(amount) + "}");
    failpoint("after_publish");
    record.bind(1, order_id);
    record.bind(2, ctx.biz_date);
    record.bind(3, idempotency_key);
    record.bind(4, delivery);
    record.exec();
    record.reset();
    failpoint("after_record");
  }
  std::cout << "refund " << ctx.variant << ": " << ctx.biz_date << " refunded " << pending.size()
            << " orders\n";
  return kExitOk;
}

}  // namespace killpoint::catalogue
