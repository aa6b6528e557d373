// Locks around a daily payout. The payout is a row in payouts, written by check-then-act:
// "is the date paid? if not, pay it", trusting the lock to make the two steps atomic.
// lease: a lease in SQLite (locks: holder, token, expires_at_ms on the real clock); a holder
//   paused past its TTL loses the lease without knowing, and two holders both act.
// lease-fencing: the same, and the payout's transaction checks that the lease's token is still
//   this run's (a fencing token), so a holder that lost its lease cannot write.
// flock: flock(2) on payout.lock in the work directory; the kernel releases it when the holder
//   dies, and a paused holder keeps it (one machine only).
// lease-no-idempotency (bug): a lease and no "is it paid?" check: a lock stops two runs at the
//   same time, not a rerun of yesterday's date today.
// A lock held by another run is waited for up to --wait-ms, then the run exits 75 (busy).
// Failpoints: after_lock, after_check, after_write, before_release.
#include <fcntl.h>
#include <killpoint/failpoint.h>
#include <sys/file.h>
#include <unistd.h>

#include <iostream>
#include <thread>

#include "catalogue/catalogue.h"

namespace killpoint::catalogue {
namespace {

constexpr const char* kLockSchema = R"sql(
CREATE TABLE IF NOT EXISTS locks(name TEXT PRIMARY KEY, holder TEXT NOT NULL, token INTEGER NOT NULL,
  expires_at_ms INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS payout_requests(biz_date TEXT PRIMARY KEY, amount_cents INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS payouts(payout_id INTEGER PRIMARY KEY, biz_date TEXT NOT NULL,
  amount_cents INTEGER NOT NULL, instance INTEGER NOT NULL, token INTEGER NOT NULL);
)sql";

constexpr auto kPoll = std::chrono::milliseconds(10);

std::string Holder(const Context& ctx) {
  return "instance " + std::to_string(ctx.instance) + " pid " + std::to_string(::getpid());
}

// Takes the lease if it is free or expired; returns its new token, or 0 if another holds it.
int64_t TryLease(SQLite::Database& db, const Context& ctx, std::string* held_by) {
  SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
  SQLite::Statement q(db, "SELECT holder, token, expires_at_ms FROM locks WHERE name = 'payout'");
  int64_t token = 1;
  if (q.executeStep()) {
    if (q.getColumn(2).getInt64() > NowMs()) {
      *held_by = q.getColumn(0).getString();
      return 0;
    }
    token = q.getColumn(1).getInt64() + 1;
  }
  q.reset();
  SQLite::Statement take(
      db,
      "INSERT INTO locks(name, holder, token, expires_at_ms) VALUES ('payout', ?1, ?2, ?3)"
      " ON CONFLICT(name) DO UPDATE SET holder = excluded.holder, token = excluded.token,"
      " expires_at_ms = excluded.expires_at_ms");
  take.bind(1, Holder(ctx));
  take.bind(2, token);
  take.bind(3, NowMs() + ctx.ttl_ms);
  take.exec();
  tx.commit();
  return token;
}

// A wait for a lock another run holds is reported downstream (ReportWait), acquired or not:
// it is real time the scenario costs whoever runs it.
int64_t AcquireLease(SQLite::Database& db, const Context& ctx) {
  int64_t started = NowMs();
  int64_t deadline = started + ctx.wait_ms;
  std::string held_by;
  for (;;) {
    if (int64_t token = TryLease(db, ctx, &held_by)) {
      if (!held_by.empty()) ReportWait(ctx, "payout lease", NowMs() - started, true, held_by);
      return token;
    }
    if (NowMs() >= deadline) {
      ReportWait(ctx, "payout lease", NowMs() - started, false, held_by);
      throw JobError(kExitBusy, "the payout lease is held by " + held_by);
    }
    std::this_thread::sleep_for(kPoll);
  }
}

int AcquireFlock(const Context& ctx) {
  std::string path = ctx.workdir + "/payout.lock";
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw JobError(kExitFailed, "cannot open " + path);
  int64_t started = NowMs();
  int64_t deadline = started + ctx.wait_ms;
  bool waited = false;
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    waited = true;
    if (NowMs() >= deadline) {
      ::close(fd);
      ReportWait(ctx, "payout.lock", NowMs() - started, false, "");
      throw JobError(kExitBusy, path + " is locked by another run");
    }
    std::this_thread::sleep_for(kPoll);
  }
  if (waited) ReportWait(ctx, "payout.lock", NowMs() - started, true, "");
  return fd;
}

bool Paid(SQLite::Database& db, const std::string& date) {
  SQLite::Statement q(db, "SELECT 1 FROM payouts WHERE biz_date = ?1");
  q.bind(1, date);
  return q.executeStep();
}

void Pay(SQLite::Database& db, const Context& ctx, int64_t token, bool fencing) {
  SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
  if (fencing) {
    SQLite::Statement q(db, "SELECT token FROM locks WHERE name = 'payout'");
    int64_t current = q.executeStep() ? q.getColumn(0).getInt64() : 0;
    if (current != token) {
      throw JobError(kExitBusy, "fenced off: this run's lease token is " + std::to_string(token) +
                                    ", the lock's is now " + std::to_string(current));
    }
  }
  SQLite::Statement pay(
      db,
      "INSERT INTO payouts(biz_date, amount_cents, instance, token)"
      " SELECT biz_date, amount_cents, ?2, ?3 FROM payout_requests WHERE biz_date = ?1");
  pay.bind(1, ctx.biz_date);
  pay.bind(2, ctx.instance);
  pay.bind(3, token);
  pay.exec();
  tx.commit();
}

}  // namespace

int RunLock(const Context& ctx) {
  bool flock = ctx.variant == "flock";
  bool fencing = ctx.variant == "lease-fencing";
  bool idempotent = ctx.variant != "lease-no-idempotency";
  SQLite::Database db = OpenDb(ctx.db);
  db.exec(kLockSchema);
  SQLite::Statement request(
      db, "INSERT OR IGNORE INTO payout_requests(biz_date, amount_cents) VALUES (?1, ?2)");
  request.bind(1, ctx.biz_date);
  request.bind(2, OrdersOf(ctx.biz_date).front().amount_cents);
  request.exec();
  int fd = -1;
  int64_t token = 0;
  if (flock) {
    fd = AcquireFlock(ctx);
  } else {
    token = AcquireLease(db, ctx);
  }
  failpoint("after_lock");
  bool paid = idempotent && Paid(db, ctx.biz_date);
  failpoint("after_check");
  if (!paid) Pay(db, ctx, token, fencing);
  failpoint("after_write");
  failpoint("before_release");
  if (flock) {
    ::close(fd);
  } else {
    // The row stays, expired: its token must keep growing, or a stale holder's token would
    // become valid again for the next holder's fencing check.
    SQLite::Statement release(
        db, "UPDATE locks SET holder = '', expires_at_ms = 0 WHERE name = 'payout' AND token = ?1");
    release.bind(1, token);
    release.exec();
  }
  std::cout << "lock " << ctx.variant << ": " << ctx.biz_date
            << (paid ? " was already paid" : " paid") << " by " << Holder(ctx)
            << (flock ? "" : " token " + std::to_string(token)) << "\n";
  return kExitOk;
}

}  // namespace killpoint::catalogue
