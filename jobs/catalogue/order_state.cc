// Order state machine new -> processing -> completed, with fulfilment sent downstream
// (POST /publish "fulfil-<order_id>") while the order is processing.
// conditional (correct): UPDATE ... SET status = 'processing' WHERE status = 'new', and only the
// run whose update changed a row fulfils the order: at most once, even with two instances at
// once. What it gives up: an order whose run died while processing stays there; nobody
// completes it without a lease or a reconciliation.
// read-then-write (bug): reads the status and fulfils anything not completed yet; a run that
// died after fulfilling, or a second instance reading at the same time, fulfils it again.
// Failpoints: after_read, after_claim, after_publish, after_complete (each per order).
#include <killpoint/failpoint.h>

#include <iostream>

#include "catalogue/catalogue.h"

namespace killpoint::catalogue {
namespace {

constexpr const char* kOrderStateSchema =
    "CREATE TABLE IF NOT EXISTS orders(order_id INTEGER PRIMARY KEY, biz_date TEXT NOT NULL,"
    " amount_cents INTEGER NOT NULL, status TEXT NOT NULL DEFAULT 'new')";

// Moves the order from `from` to `to`; returns whether this run made the change.
bool Transition(SQLite::Database& db, int64_t id, const char* from, const char* to,
                bool conditional) {
  SQLite::Statement u(db, std::string("UPDATE orders SET status = ?1 WHERE order_id = ?2") +
                              (conditional ? " AND status = ?3" : ""));
  u.bind(1, to);
  u.bind(2, id);
  if (conditional) u.bind(3, from);
  return u.exec() == 1;
}

std::string StatusOf(SQLite::Database& db, int64_t id) {
  SQLite::Statement q(db, "SELECT status FROM orders WHERE order_id = ?1");
  q.bind(1, id);
  return q.executeStep() ? q.getColumn(0).getString() : "";
}

}  // namespace

int RunOrderState(const Context& ctx) {
  bool conditional = ctx.variant == "conditional";
  SQLite::Database db = OpenDb(ctx.db);
  db.exec(kOrderStateSchema);
  SeedOrders(db, "orders", ctx.biz_date, false);
  int fulfilled = 0;
  for (const Order& o : OrdersOf(ctx.biz_date)) {
    if (!conditional) {
      if (StatusOf(db, o.id) == "completed") continue;
      failpoint("after_read");
    }
    if (!Transition(db, o.id, "new", "processing", conditional))
      continue;  // not ours (conditional only)
    failpoint("after_claim");
    std::string key = "fulfil-" + std::to_string(o.id);
    Publish(ctx, key, key, R"({"order_id":)" + std::to_string(o.id) + "}");
    failpoint("after_publish");
    if (!Transition(db, o.id, "processing", "completed", conditional)) {
      throw JobError(kExitFailed, "order " + std::to_string(o.id) +
                                      " left processing while this run fulfilled it");
    }
    failpoint("after_complete");
    ++fulfilled;
  }
  std::cout << "order-state " << ctx.variant << ": " << ctx.biz_date << " fulfilled " << fulfilled
            << "\n";
  return kExitOk;
}

}  // namespace killpoint::catalogue
