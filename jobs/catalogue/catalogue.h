// kp-catalogue: reference implementations of common idempotency patterns, each with its
// correct form and its typical bug (docs/catalogue.md). One binary, one subcommand per pattern:
//
//   kp-catalogue order-status --variant upsert|insert
//   kp-catalogue inventory    --variant ledger|no-key
//   kp-catalogue refund       --variant order-key|uuid
//   kp-catalogue order-state  --variant conditional|read-then-write
//   kp-catalogue queue        --variant ack-after-dedupe|ack-after|ack-before
//   kp-catalogue lock         --variant lease|lease-fencing|flock|lease-no-idempotency
//
// Each run handles one business date ($KILLPOINT_BIZ_DATE or --biz-date) in a SQLite database
// ($KILLPOINT_WORKDIR/<pattern>.db or --db). It first seeds its own input for the date
// (orders, shipments, messages...), deterministically and idempotently, so that checks can
// compare the outcome with the source. Named failpoints sit between the steps that matter.
#ifndef KILLPOINT_JOBS_CATALOGUE_CATALOGUE_H_
#define KILLPOINT_JOBS_CATALOGUE_CATALOGUE_H_

#include <SQLiteCpp/SQLiteCpp.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace killpoint::catalogue {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;  // retryable: the scheduler may run it again
inline constexpr int kExitUsage = 2;
inline constexpr int kExitBusy = 75;  // EX_TEMPFAIL: the lock is held, or was lost

struct Context {
  std::string db;        // the SQLite file
  std::string biz_date;  // YYYY-MM-DD
  std::string variant;
  std::string downstream;    // base URL, for the patterns that publish
  std::string workdir;       // where a lock file goes
  int instance = 1;          // $KILLPOINT_INSTANCE: which of overlapping runs this is
  int64_t ttl_ms = 300;      // lock: the lease's time to live (real clock)
  int64_t wait_ms = 1000;    // lock: how long to wait for a held lock
  int64_t timeout_ms = 300;  // downstream request timeout
};

// Ends the run with `code` and a message on stderr.
struct JobError : std::runtime_error {
  JobError(int exit_code, const std::string& what) : std::runtime_error(what), code(exit_code) {}
  int code;
};

// Opens (creating) the database in WAL mode with synchronous=NORMAL, waiting up to 5 s for
// another writer.
SQLite::Database OpenDb(const std::string& path);

// The date's orders: 3 + day % 3 of them, ids YYYYMMDDnn, deterministic amounts and items.
struct Order {
  int64_t id;
  int64_t amount_cents;
  std::string sku;
  int qty;
};
std::vector<Order> OrdersOf(const std::string& biz_date);

// Inserts the date's orders into `table`(order_id, biz_date, amount_cents [, sku, qty]) if they
// are not there yet, in one transaction. `with_items` adds sku and qty.
void SeedOrders(SQLite::Database& db, const std::string& table, const std::string& biz_date,
                bool with_items);

// Milliseconds on the real clock (CLOCK_REALTIME), as leases across processes need.
int64_t NowMs();

// A random UUID v4, from /dev/urandom.
std::string NewUuid();

// POST {downstream}/publish {"key", "biz_date", "payload"} with header Idempotency-Key.
// Returns the delivery id; throws JobError(kExitFailed) on no answer, a timeout or an error.
int64_t Publish(const Context& ctx, const std::string& key, const std::string& idempotency_key,
                const std::string& payload_json);

// POST {downstream}/wait {"key": what, "ms", "acquired"[, "held_by"]}, X-Killpoint-Instance:
// tells the harness that this run waited `ms` on the real clock for what another run held
// (docs/faults.md). Best effort: without a downstream, or when it does not answer, nothing.
void ReportWait(const Context& ctx, const std::string& what, int64_t ms, bool acquired,
                const std::string& held_by);

int RunOrderStatus(const Context& ctx);
int RunInventory(const Context& ctx);
int RunRefund(const Context& ctx);
int RunOrderState(const Context& ctx);
int RunQueue(const Context& ctx);
int RunLock(const Context& ctx);

}  // namespace killpoint::catalogue

#endif  // KILLPOINT_JOBS_CATALOGUE_CATALOGUE_H_
