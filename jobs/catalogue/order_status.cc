// Order status by unique key. upsert (correct): one row per order_id, a rerun overwrites it.
// insert (bug): a status table without a unique key and a plain INSERT, so every rerun that
// follows a committed write adds another status row for the same order.
// Failpoints: before_write, after_insert (after each order's row), after_last_write.
#include <killpoint/failpoint.h>

#include <iostream>

#include "catalogue/catalogue.h"

namespace killpoint::catalogue {
namespace {

constexpr const char* kOrders =
    "CREATE TABLE IF NOT EXISTS orders(order_id INTEGER PRIMARY KEY, biz_date TEXT NOT NULL,"
    " amount_cents INTEGER NOT NULL)";
constexpr const char* kStatusKeyed =
    "CREATE TABLE IF NOT EXISTS order_status(order_id INTEGER PRIMARY KEY, biz_date TEXT NOT NULL,"
    " status TEXT NOT NULL, updated_at INTEGER NOT NULL)";
constexpr const char* kStatusUnkeyed =
    "CREATE TABLE IF NOT EXISTS order_status(row_id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL,"
    " biz_date TEXT NOT NULL, status TEXT NOT NULL, updated_at INTEGER NOT NULL)";

constexpr const char* kInsert =
    "INSERT INTO order_status(order_id, biz_date, status, updated_at) VALUES (?1, ?2, 'settled', "
    "?3)";

}  // namespace

int RunOrderStatus(const Context& ctx) {
  bool upsert = ctx.variant == "upsert";
  SQLite::Database db = OpenDb(ctx.db);
  db.exec(kOrders);
  db.exec(upsert ? kStatusKeyed : kStatusUnkeyed);
  SeedOrders(db, "orders", ctx.biz_date, false);
  std::string sql = std::string(kInsert) +
                    (upsert ? " ON CONFLICT(order_id) DO UPDATE SET status = excluded.status,"
                              " updated_at = excluded.updated_at"
                            : "");
  SQLite::Statement select(db, "SELECT order_id FROM orders WHERE biz_date = ?1 ORDER BY order_id");
  select.bind(1, ctx.biz_date);
  std::vector<int64_t> ids;
  while (select.executeStep()) ids.push_back(select.getColumn(0).getInt64());
  failpoint("before_write");
  SQLite::Statement write(db, sql);
  for (int64_t id : ids) {  // one autocommit write per order, as a status updater does
    write.bind(1, id);
    write.bind(2, ctx.biz_date);
    write.bind(3, NowMs());
    write.exec();
    write.reset();
    failpoint("after_insert");
  }
  failpoint("after_last_write");
  std::cout << "order-status " << ctx.variant << ": " << ids.size() << " orders of " << ctx.biz_date
            << "\n";
  return kExitOk;
}

}  // namespace killpoint::catalogue
