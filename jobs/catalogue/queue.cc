// Queue consumer. The date's messages sit in a durable queue (the messages table, standing for
// a broker: acknowledging is its own transaction, never atomic with the effect). The effect is
// a row in effects (a credit), in the consumer's own transaction.
// ack-after-dedupe (correct): process, then ack; the effect's transaction also records the
// message id in processed, so a redelivered message has no second effect. At-least-once
// delivery, exactly-once effect.
// ack-after (bug, no dedupe): process, then ack; a crash between the two redelivers the
// message and the effect happens twice.
// ack-before (at-most-once): ack, then process; a crash between the two loses the message.
// Failpoints: before_process, before_ack, after_ack (each per message).
#include <killpoint/failpoint.h>

#include <iostream>

#include "catalogue/catalogue.h"

namespace killpoint::catalogue {
namespace {

constexpr const char* kQueueSchema = R"sql(
CREATE TABLE IF NOT EXISTS messages(msg_id TEXT PRIMARY KEY, biz_date TEXT NOT NULL,
  amount_cents INTEGER NOT NULL, acked INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS effects(effect_id INTEGER PRIMARY KEY, msg_id TEXT NOT NULL,
  amount_cents INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS processed(msg_id TEXT PRIMARY KEY);
)sql";

void Enqueue(SQLite::Database& db, const std::string& date) {
  SQLite::Transaction tx(db);
  SQLite::Statement put(
      db, "INSERT OR IGNORE INTO messages(msg_id, biz_date, amount_cents) VALUES (?1, ?2, ?3)");
  for (const Order& o : OrdersOf(date)) {
    put.bind(1, "msg-" + std::to_string(o.id));
    put.bind(2, date);
    put.bind(3, o.amount_cents);
    put.exec();
    put.reset();
  }
  tx.commit();
}

void Ack(SQLite::Database& db, const std::string& id) {
  SQLite::Statement ack(db, "UPDATE messages SET acked = 1 WHERE msg_id = ?1");
  ack.bind(1, id);
  ack.exec();
}

// The effect, in one transaction; with dedupe, only for a message id not seen before.
void Process(SQLite::Database& db, const std::string& id, int64_t amount, bool dedupe) {
  SQLite::Transaction tx(db);
  if (dedupe) {
    SQLite::Statement seen(db, "INSERT OR IGNORE INTO processed(msg_id) VALUES (?1)");
    seen.bind(1, id);
    if (seen.exec() == 0) return;  // redelivered: its effect is already there
  }
  SQLite::Statement effect(db, "INSERT INTO effects(msg_id, amount_cents) VALUES (?1, ?2)");
  effect.bind(1, id);
  effect.bind(2, amount);
  effect.exec();
  tx.commit();
}

}  // namespace

int RunQueue(const Context& ctx) {
  bool ack_before = ctx.variant == "ack-before";
  bool dedupe = ctx.variant == "ack-after-dedupe";
  SQLite::Database db = OpenDb(ctx.db);
  db.exec(kQueueSchema);
  Enqueue(db, ctx.biz_date);
  int consumed = 0;
  for (;;) {  // receive: the oldest unacknowledged message of the date
    SQLite::Statement next(
        db,
        "SELECT msg_id, amount_cents FROM messages WHERE biz_date = ?1 AND acked = 0"
        " ORDER BY msg_id LIMIT 1");
    next.bind(1, ctx.biz_date);
    if (!next.executeStep()) break;
    std::string id = next.getColumn(0).getString();
    int64_t amount = next.getColumn(1).getInt64();
    next.reset();
    failpoint("before_process");
    if (ack_before) {
      Ack(db, id);
      failpoint("after_ack");
      Process(db, id, amount, false);
    } else {
      Process(db, id, amount, dedupe);
      failpoint("before_ack");
      Ack(db, id);
      failpoint("after_ack");
    }
    ++consumed;
  }
  std::cout << "queue " << ctx.variant << ": " << ctx.biz_date << " consumed " << consumed
            << " messages\n";
  return kExitOk;
}

}  // namespace killpoint::catalogue
