// Inventory decrement in a transaction with a log row. Each shipment of the date runs
//   UPDATE stock SET qty = qty - q WHERE sku = ? AND qty >= q   plus   INSERT INTO stock_log
// atomically. ledger (correct): the log row is keyed by order_id and inserted first; when it
// is already there the order was applied and nothing is decremented. no-key (bug): the log row
// has no key, so a rerun after a commit decrements the stock again.
// Failpoints: after_decrement, before_commit, after_commit (each per order).
#include <killpoint/failpoint.h>

#include <iostream>

#include "catalogue/catalogue.h"

namespace killpoint::catalogue {
namespace {

constexpr int64_t kInitialQty = 1000;

constexpr const char* kInventorySchema = R"sql(
CREATE TABLE IF NOT EXISTS stock(sku TEXT PRIMARY KEY, initial_qty INTEGER NOT NULL, qty INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS shipments(order_id INTEGER PRIMARY KEY, biz_date TEXT NOT NULL,
  amount_cents INTEGER NOT NULL, sku TEXT NOT NULL, qty INTEGER NOT NULL);
)sql";
constexpr const char* kLogKeyed =
    "CREATE TABLE IF NOT EXISTS stock_log(order_id INTEGER PRIMARY KEY, biz_date TEXT NOT NULL,"
    " sku TEXT NOT NULL, qty INTEGER NOT NULL)";
constexpr const char* kLogUnkeyed =
    "CREATE TABLE IF NOT EXISTS stock_log(log_id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL,"
    " biz_date TEXT NOT NULL, sku TEXT NOT NULL, qty INTEGER NOT NULL)";

struct Shipment {
  int64_t order_id;
  std::string sku;
  int64_t qty;
};

std::vector<Shipment> ShipmentsOf(SQLite::Database& db, const std::string& date) {
  SQLite::Statement q(
      db, "SELECT order_id, sku, qty FROM shipments WHERE biz_date = ?1 ORDER BY order_id");
  q.bind(1, date);
  std::vector<Shipment> out;
  while (q.executeStep())
    out.push_back(
        {q.getColumn(0).getInt64(), q.getColumn(1).getString(), q.getColumn(2).getInt64()});
  return out;
}

// Applies one shipment in one transaction; false when it was applied before (ledger only).
bool Apply(SQLite::Database& db, const Context& ctx, const Shipment& s, bool ledger) {
  SQLite::Transaction tx(db);
  SQLite::Statement log(db,
                        "INSERT " + std::string(ledger ? "OR IGNORE " : "") +
                            "INTO stock_log(order_id, biz_date, sku, qty) VALUES (?1, ?2, ?3, ?4)");
  log.bind(1, s.order_id);
  log.bind(2, ctx.biz_date);
  log.bind(3, s.sku);
  log.bind(4, s.qty);
  if (log.exec() == 0) return false;  // the ledger has it: applied by an earlier run
  SQLite::Statement take(db, "UPDATE stock SET qty = qty - ?1 WHERE sku = ?2 AND qty >= ?1");
  take.bind(1, s.qty);
  take.bind(2, s.sku);
  if (take.exec() != 1)
    throw JobError(kExitFailed,
                   "not enough stock of " + s.sku + " for order " + std::to_string(s.order_id));
  failpoint("after_decrement");
  failpoint("before_commit");
  tx.commit();
  failpoint("after_commit");
  return true;
}

}  // namespace

int RunInventory(const Context& ctx) {
  bool ledger = ctx.variant == "ledger";
  SQLite::Database db = OpenDb(ctx.db);
  db.exec(kInventorySchema);
  db.exec(ledger ? kLogKeyed : kLogUnkeyed);
  SQLite::Statement stock(db,
                          "INSERT OR IGNORE INTO stock(sku, initial_qty, qty) VALUES (?1, ?2, ?2)");
  for (const char* sku : {"A", "B"}) {
    stock.bind(1, sku);
    stock.bind(2, kInitialQty);
    stock.exec();
    stock.reset();
  }
  SeedOrders(db, "shipments", ctx.biz_date, true);
  int applied = 0, skipped = 0;
  for (const Shipment& s : ShipmentsOf(db, ctx.biz_date))
    (Apply(db, ctx, s, ledger) ? applied : skipped)++;
  std::cout << "inventory " << ctx.variant << ": " << ctx.biz_date << " applied " << applied
            << ", already applied " << skipped << "\n";
  return kExitOk;
}

}  // namespace killpoint::catalogue
