// A scenario's own checks over every crash state (SqlCheck::after_every_crash): what the runner
// records after a kill (CheckCrashState, on a copy of the database) and how the check's verdict
// folds those states in with the final one (CheckTrial).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check_fixture.h"
#include "history/event_registry.h"

namespace killpoint {
namespace {

using ::testing::HasSubstr;

class CrashCheckTest : public ::testing::Test {
 protected:
  CrashCheckTest() {
    SqlCheck c;
    c.db = "ledger.db";
    c.sql =
        "SELECT DISTINCT p.day FROM payments p LEFT JOIN daily_totals t ON t.day = p.day WHERE "
        "t.day IS NULL";
    c.says = "a date that has payments has no row in daily_totals";
    c.after_every_crash = true;
    f_.scenario().checks["every_day_has_its_total"] = c;
    f_.scenario().must_hold = {"every_day_has_its_total"};
    work_ = f_.dir() / "work";
    std::filesystem::create_directories(work_);
    SQLite::Database db((work_ / "ledger.db").string(),
                        SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("PRAGMA synchronous=OFF");
    db.exec(
        "CREATE TABLE payments(day TEXT, cents INTEGER); CREATE TABLE daily_totals(day TEXT, "
        "total_cents INTEGER)");
    db.exec("INSERT INTO payments VALUES ('2026-11-01', 5), ('2026-11-02', 7)");
    db.exec("INSERT INTO daily_totals VALUES ('2026-11-01', 5), ('2026-11-02', 7)");
  }

  void Exec(const std::string& sql) {
    SQLite::Database((work_ / "ledger.db").string(), SQLite::OPEN_READWRITE)
        .exec("PRAGMA synchronous=OFF; " + sql);
  }

  // A kill at `point` in attempt 1 of 2026-11-01, then the crash state as the runner records it.
  void KillAndCheck(const std::string& point) {
    f_.history().SetContext({"2026-11-01", 1, 1});
    f_.history().Add(event::Kill::kType, {{"point", point}, {"hit", 1}, {"model", "power"}});
    auto verdicts = CheckCrashState(f_.scenario(), work_, f_.dir() / "scratch", {});
    ASSERT_TRUE(verdicts) << verdicts.error().message;
    f_.history().Add(
        event::CrashCheck::kType,
        {{"point", point}, {"hit", 1}, {"model", "power"}, {"verdicts", verdicts.value()}});
  }

  Result<Verdict> Checked() {
    events_ = f_.history().Events();
    CheckInput in{f_.scenario(), f_.plan(), events_, work_};
    auto all = CheckTrial(in, BuiltinCheckers());
    if (!all) return all.error();
    return all.value().at(0);
  }

  CheckFixture f_;
  std::filesystem::path work_;
  std::vector<Event> events_;
};

TEST_F(CrashCheckTest, ARowMissingOnlyBetweenAttemptsIsAViolationNamingTheCrash) {
  Exec("DELETE FROM daily_totals WHERE day = '2026-11-01'");  // the first of two transactions
  KillAndCheck("fsync:ledger.db-wal");
  Exec("INSERT INTO daily_totals VALUES ('2026-11-01', 5)");  // the retry puts it back
  auto v = Checked();
  ASSERT_TRUE(v) << v.error().message;
  EXPECT_FALSE(v.value().held);
  EXPECT_EQ(v.value().explanation,
            "after the crash at fsync:ledger.db-wal (2026-11-01 attempt 1, power), a reader saw: a "
            "date that has "
            "payments has no row in daily_totals: 1 row in ledger.db, day=2026-11-01");
}

TEST_F(CrashCheckTest, HeldInEveryCrashStateAndAtTheEnd) {
  KillAndCheck("write:ledger.db-wal");
  KillAndCheck("fsync:ledger.db-wal");
  auto v = Checked();
  ASSERT_TRUE(v) << v.error().message;
  EXPECT_TRUE(v.value().held) << v.value();
  EXPECT_EQ(v.value().explanation, "held after each of 2 crashes and at the end");
}

// A crash state whose last commit is only in the WAL: the check must see that commit (the WAL
// is copied with the database) and must not checkpoint it into the sandbox's database (it
// reads a copy; a reader closing the database in place would checkpoint and delete the WAL).
TEST_F(CrashCheckTest, ReadsACopyWithItsWalAndLeavesTheCrashStateAsItWas) {
  namespace fs = std::filesystem;
  fs::path crash = f_.dir() / "crash";
  fs::create_directories(crash);
  {
    SQLite::Database job((work_ / "ledger.db").string(), SQLite::OPEN_READWRITE);
    job.exec("PRAGMA journal_mode=WAL");
    job.exec("PRAGMA wal_autocheckpoint=0");
    job.exec("DELETE FROM daily_totals WHERE day = '2026-11-01'");
    fs::copy_file(work_ / "ledger.db", crash / "ledger.db");
    fs::copy_file(work_ / "ledger.db-wal", crash / "ledger.db-wal");
  }
  auto wal_size = fs::file_size(crash / "ledger.db-wal");
  auto verdicts = CheckCrashState(f_.scenario(), crash, f_.dir() / "scratch", {});
  ASSERT_TRUE(verdicts) << verdicts.error().message;
  EXPECT_FALSE(verdicts.value().at(0).get<Verdict>().held) << "the delete is in the WAL";
  ASSERT_TRUE(fs::exists(crash / "ledger.db-wal"));
  EXPECT_EQ(fs::file_size(crash / "ledger.db-wal"), wal_size);
}

TEST_F(CrashCheckTest, AKillNeverFollowedByACheckIsAHarnessError) {
  f_.history().Add(event::Kill::kType,
                   {{"point", "write:ledger.db-wal"}, {"hit", 1}, {"model", "process"}});
  auto v = Checked();
  ASSERT_FALSE(v);
  EXPECT_THAT(v.error().message, HasSubstr("none of the trial's 1 kills was followed by a check"));
}

TEST_F(CrashCheckTest, WithoutAfterEveryCrashOnlyTheEndCounts) {
  f_.scenario().checks["every_day_has_its_total"].after_every_crash = false;
  Exec("DELETE FROM daily_totals WHERE day = '2026-11-01'");
  KillAndCheck("fsync:ledger.db-wal");
  Exec("INSERT INTO daily_totals VALUES ('2026-11-01', 5)");
  auto v = Checked();
  ASSERT_TRUE(v) << v.error().message;
  EXPECT_TRUE(v.value().held) << v.value();
}

// A loopback port nothing listens on: bound, then let go.
int ClosedPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    ADD_FAILURE() << "no loopback port";
  }
  ::close(fd);
  return ntohs(a.sin_port);
}

// A check on a service reads the live server at the addresses the runner hands over (the server
// outlives the killed job), never a copy of the sandbox: each kind through its own client. Here
// the servers are gone, so each says it could not reach its own.
TEST(ServiceCrashCheck, ReadsEachServiceWhereTheTrialFoundIt) {
  CheckFixture f;
  auto add = [&](const std::string& name, const std::string& service, SqlCheck c) {
    c.service = service;
    c.says = "broken";
    c.after_every_crash = true;
    f.scenario().checks[name] = c;
  };
  SqlCheck sql, keys, queue, at_end;
  sql.sql = "SELECT 1 WHERE false";
  keys.redis.keys = "lock:*";
  queue.queue = "settle";
  at_end.sql = "SELECT 1 WHERE false";
  add("a_sql", "db", sql);
  add("b_mariadb", "my", sql);
  add("c_keys", "cache", keys);
  add("d_queue", "mq", queue);
  add("e_only_at_end", "db", at_end);
  f.scenario().checks["e_only_at_end"].after_every_crash = false;
  const int port = ClosedPort();
  ServiceAddresses services = {{"db", {"postgres", "127.0.0.1", port, "trial_1", "kp", "pw"}},
                               {"my", {"mariadb", "127.0.0.1", port, "trial_1", "kp", "pw"}},
                               {"cache", {"redis", "127.0.0.1", port, "0", "", "pw"}},
                               {"mq", {"rabbitmq", "127.0.0.1", port, "trial-1", "kp", "pw"}}};
  auto verdicts = CheckCrashState(f.scenario(), f.dir() / "work", f.dir() / "scratch", services);
  ASSERT_TRUE(verdicts) << verdicts.error().message;
  ASSERT_EQ(verdicts.value().size(), 4u) << verdicts.value().dump();
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"a_sql", "cannot run the check on service db (postgres)"},
      {"b_mariadb", "cannot run the check on service my (mariadb)"},
      {"c_keys", "cannot run the check on service cache (redis)"},
      {"d_queue", "cannot read queue settle of service mq (rabbitmq, vhost trial-1)"}};
  for (size_t i = 0; i < expected.size(); ++i) {
    Verdict v = verdicts.value().at(i).get<Verdict>();
    EXPECT_EQ(v.invariant, expected[i].first);
    EXPECT_FALSE(v.held);
    EXPECT_THAT(v.explanation, HasSubstr(expected[i].second));
  }
}

}  // namespace
}  // namespace killpoint
