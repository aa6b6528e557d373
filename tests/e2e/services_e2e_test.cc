// Real services (issue 20, docs/services.md), end to end: a Python job with psycopg2 against the
// PostgreSQL server the harness starts, killed after its COMMIT and retried. The SQL check on the
// service catches the plain INSERT's second row and holds on the upsert; a COMMIT whose answer
// the fault proxy drops makes a naive retry insert twice, and not a keyed one; no server process of
// the run outlives it, after a normal end, a SIGINT, or a SIGKILL of the harness.
// Needs Debian's postgresql and python3-psycopg2 (scripts/setup.sh): without them the tests
// fail with that hint, never skip.
#include <dirent.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "history/event_registry.h"
#include "history/history_log.h"
#include "killpoint_cli.h"
#include "service/postgres/postgres.h"
#include "service/redis/redis.h"
#include "util/slug.h"

namespace killpoint::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
// The processes whose command line or working folder is inside `dir`: a postmaster names its
// data folder in its arguments; every postgres process works in it.
std::vector<std::string> ProcessesIn(const fs::path& dir) {
  std::vector<std::string> found;
  DIR* proc = ::opendir("/proc");
  while (dirent* e = proc ? ::readdir(proc) : nullptr) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    fs::path p = fs::path("/proc") / e->d_name;
    std::string cmdline = Slurp(p / "cmdline");
    std::error_code ec;
    std::string cwd = fs::read_symlink(p / "cwd", ec).string();
    if (cmdline.find(dir.string()) != std::string::npos || cwd.rfind(dir.string(), 0) == 0) {
      for (char& c : cmdline) c = c == '\0' ? ' ' : c;
      found.push_back(std::string(e->d_name) + ": " + cmdline);
    }
  }
  if (proc) ::closedir(proc);
  return found;
}

// Both forms in one run: one initdb (the run's template), one server lent from scenario to
// scenario. Its folder outlives the fixture's: the second test reads the same run.
fs::path BothFormsSandboxes() {
  return fs::temp_directory_path() / ("kp-e2e-services-both-" + std::to_string(::getpid())) /
         "sandboxes";
}

class PostgresService : public ::testing::Test {
 protected:
  void SetUp() override {
    auto bin = PostgresBinDir();
    ASSERT_TRUE(bin) << bin.error().message;
    ASSERT_EQ(std::system("/usr/bin/python3 -c 'import psycopg2' 2>/dev/null"), 0)
        << "the reference job needs python3-psycopg2: run scripts/setup.sh";
    name_ = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    root_ = FreshDir("services-" + name_);
    sandboxes_ = root_ / "sandboxes";
  }
  void TearDown() override {
    // Eventually: the run's orphan guard, a fork of the harness whose command line names the
    // sandbox root, ends a moment after the harness.
    EXPECT_TRUE(Eventually([&] { return ProcessesIn(sandboxes_).empty(); }))
        << "a server outlived the run: " << ::testing::PrintToString(ProcessesIn(sandboxes_));
    if (!HasFailure()) fs::remove_all(root_);
  }
  static void TearDownTestSuite() {  // BothForms's folder, once its two tests have read it
    std::error_code ec;
    fs::remove_all(BothFormsSandboxes().parent_path(), ec);
  }
  std::vector<std::string> Args(const std::string& scenario) {
    return {"run",
            "tests/fixtures/services/" + scenario + ".json",
            "--jobs",
            "1",
            "--sandbox-root",
            sandboxes_.string()};
  }

  std::string name_;
  fs::path root_, sandboxes_;
};

const CliRun& BothForms() {
  static const CliRun run = [] {
    fs::path base = BothFormsSandboxes().parent_path();
    fs::remove_all(base);
    CliRun r = RunKillpoint(
        "run",
        {"run", "tests/fixtures/services/insert.json", "tests/fixtures/services/upsert.json",
         "tests/fixtures/services/ambiguous-naive.json",
         "tests/fixtures/services/ambiguous-keyed.json",
         "tests/fixtures/services/inventory-crash-state.json", "--jobs", "1", "--sandbox-root",
         BothFormsSandboxes().string()},
        base);
    r.Results();  // read while the folder is there
    return r;
  }();
  // Eventually: the run's orphan guard, a fork of the harness that names the sandbox root, ends
  // a moment after the harness.
  EXPECT_TRUE(Eventually([] { return ProcessesIn(BothFormsSandboxes()).empty(); }))
      << "a server outlived the run: "
      << ::testing::PrintToString(ProcessesIn(BothFormsSandboxes()));
  return run;
}

TEST_F(PostgresService, ThePlainInsertLeavesTwoRowsForADateAfterAKillAfterItsCommit) {
  const CliRun& r = BothForms();
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  const auto& s = r.Results()["scenarios"][0];
  ASSERT_EQ(s["name"], "services/settle-insert");
  EXPECT_GT(s["exercise"]["points"]["after_commit"]["fired"].get<int>(), 0) << s["exercise"];
  nlohmann::json i = Invariant(r.Results(), "services/settle-insert", "one_row_per_biz_date");
  EXPECT_EQ(i["status"], "VIOLATED") << i.dump();
  EXPECT_THAT(i["examples"][0]["explanation"].get<std::string>(),
              HasSubstr("in service db (postgres), biz_date=2026-11-01"));
  EXPECT_THAT(i["examples"][0]["explanation"].get<std::string>(), HasSubstr("rows=2"));
  EXPECT_EQ(Invariant(r.Results(), "services/settle-insert", "converges")["status"], "held");
}

TEST_F(PostgresService, TheUpsertHoldsWithTheSameKills) {
  const CliRun& r = BothForms();
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;  // the insert's violation
  const auto& s = r.Results()["scenarios"][1];
  ASSERT_EQ(s["name"], "services/settle-upsert");
  EXPECT_GT(s["exercise"]["points"]["after_commit"]["fired"].get<int>(), 0) << s["exercise"];
  EXPECT_FALSE(s["must_hold_violated"].get<bool>()) << s.dump();
  for (const char* name : {"one_row_per_biz_date", "amount_is_recomputed", "converges"}) {
    nlohmann::json i = Invariant(r.Results(), "services/settle-upsert", name);
    EXPECT_EQ(i["status"], "held") << name << ": " << i.dump();
  }
}

// The ambiguous COMMIT (docs/services.md, "Faults between the job and its services"): in
// BothForms's run too (one initdb), the proxy lets the first COMMIT of the attempt reach the
// server and drops its answer; both jobs reconnect and try again.
// The scenario's net_fault events: the proxy did drop an answer, in the first attempt.
void ExpectDroppedAnswer(const CliRun& r, const std::string& scenario) {
  const auto& s = r.Results()["scenarios"];
  auto it = std::find_if(s.begin(), s.end(), [&](const auto& x) { return x["name"] == scenario; });
  ASSERT_NE(it, s.end());
  EXPECT_EQ((*it)["exercise"]["other_faults"], 1) << it->dump();
  EXPECT_EQ((*it)["exercise"]["other_unfired"], 0) << it->dump();
}

TEST_F(PostgresService, ALostCommitAnswerMakesTheNaiveJobInsertTwice) {
  const CliRun& r = BothForms();
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  ExpectDroppedAnswer(r, "services/ambiguous-commit-naive");
  nlohmann::json i =
      Invariant(r.Results(), "services/ambiguous-commit-naive", "one_row_per_biz_date");
  EXPECT_EQ(i["status"], "VIOLATED") << i.dump();
  EXPECT_THAT(i["examples"][0]["explanation"].get<std::string>(), HasSubstr("rows=2"));
  EXPECT_THAT(i["examples"][0]["plan"].get<std::string>(),
              HasSubstr("a1 drop_answer@net:db:commit#1"));
}

TEST_F(PostgresService, TheKeyedJobLooksUpItsDateAndInsertsOnce) {
  const CliRun& r = BothForms();
  ExpectDroppedAnswer(r, "services/ambiguous-commit-keyed");
  for (const char* name : {"one_row_per_biz_date", "converges"}) {
    nlohmann::json i = Invariant(r.Results(), "services/ambiguous-commit-keyed", name);
    EXPECT_EQ(i["status"], "held") << name << ": " << i.dump();
  }
}

// after_every_crash on a service (docs/services.md): in BothForms's run too, the inventory job
// that takes the stock off in one transaction and logs it in a second, killed between them; each
// start recomputes the stock from the ledger, so the retry repairs it and the end is right. The
// server outlives the job, so the check reads the live database after the kill, before the
// retry: the stock without its ledger row, the crash named, which the same query at the end
// alone never sees; the ledger is never ahead.
TEST_F(PostgresService, AfterEveryCrashReadsTheServiceBetweenTheKillAndTheRetry) {
  const CliRun& r = BothForms();
  const std::string scenario = "services/inventory-crash-state";
  nlohmann::json broken = Invariant(r.Results(), scenario, "stock_matches_ledger");
  EXPECT_EQ(broken["status"], "expected, shown") << broken.dump();
  const std::string why = broken["examples"][0]["explanation"].get<std::string>();
  EXPECT_THAT(why, HasSubstr("after the crash at between_transactions (2026-11-01 attempt 1, "
                             "process), a reader saw: the stock does not match its ledger: 1 row "
                             "in service db (postgres), sku=widget, qty=97, expected=100"));
  EXPECT_THAT(why, ::testing::Not(HasSubstr("at the end too")));
  for (const char* name : {"stock_matches_ledger_at_end", "ledger_never_ahead", "converges"}) {
    nlohmann::json i = Invariant(r.Results(), scenario, name);
    EXPECT_EQ(i["status"], "held") << name << ": " << i.dump();
  }
  // The check ran between the killed attempt's exit and the retry's spawn.
  auto log = ReadHistoryLog(r.dir / Slug(scenario) / "history.jsonl");
  ASSERT_TRUE(log) << log.error().message;
  std::vector<std::string> types;
  nlohmann::json verdicts;
  for (const Event& e : log.value().begin()->second) {
    if (e.type == event::Spawn::kType || e.type == event::Exit::kType ||
        e.type == event::CrashCheck::kType)
      types.push_back(e.type);
    if (e.type == event::CrashCheck::kType) verdicts = e.data["verdicts"];
  }
  EXPECT_EQ(types, (std::vector<std::string>{"spawn", "exit", "crash_check", "spawn", "exit"}));
  ASSERT_EQ(verdicts.size(), 2u) << verdicts.dump();
  EXPECT_EQ(verdicts[0]["invariant"], "ledger_never_ahead");
  EXPECT_EQ(verdicts[0]["held"], true);
  EXPECT_EQ(verdicts[1]["invariant"], "stock_matches_ledger");
  EXPECT_EQ(verdicts[1]["held"], false);
}

// Command points (docs/services.md, "Command points"): scenarios that name no point of the job's
// own, only net:db:*, every statement the job sends a crash point before it goes and after its
// answer. Exhaustive over the first attempt: the autocommit form, killed after its INSERT's answer
// (or before its UPDATE), never credits the account; one transaction always does.
TEST_F(PostgresService, CommandPointsCatchTheWindowBetweenTwoAutocommitStatements) {
  auto args = Args("pg-autocommit-statements");
  args.insert(args.begin() + 2, "tests/fixtures/services/pg-one-transaction-statements.json");
  args.insert(args.end(), {"--exhaustive"});
  CliRun r = RunKillpoint("run", args, root_);
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  const std::string buggy = "services/pg-autocommit-statements";
  nlohmann::json broken = Invariant(r.Results(), buggy, "balance_matches_settlements");
  ASSERT_EQ(broken["status"], "VIOLATED") << broken.dump();
  EXPECT_THAT(broken["examples"][0]["explanation"].get<std::string>(),
              HasSubstr("balance_cents=0, total=350"));
  // The points are the job's statements, in order, each killed before and after.
  const auto& points = r.Results()["scenarios"][0]["exercise"]["points"];
  for (const char* point : {"net:db:SELECT", "net:db:INSERT", "net:db:UPDATE"})
    EXPECT_GT(points[point]["fired"].get<int>(), 0) << point << ": " << points.dump();
  EXPECT_THAT(r.out, HasSubstr("exhaustive: 8 of 8"));
  const std::string correct = "services/pg-one-transaction-statements";
  for (const char* name : {"balance_matches_settlements", "converges"}) {
    nlohmann::json i = Invariant(r.Results(), correct, name);
    EXPECT_EQ(i["status"], "held") << name << ": " << i.dump();
  }
  EXPECT_THAT(r.out, HasSubstr("exhaustive: 12 of 12"));  // BEGIN ... COMMIT: six statements
  auto log = ReadHistoryLog(r.dir / Slug(buggy) / "history.jsonl");
  ASSERT_TRUE(log) << log.error().message;
  bool after_insert = false;
  for (const auto& [trial, events] : log.value()) {
    for (const Event& e : events) {
      after_insert |= e.type == event::Kill::kType && e.data["point"] == "net:db:INSERT" &&
                      e.data["when"] == "after";
    }
  }
  EXPECT_TRUE(after_insert);
}

// A run long enough to be stopped in the middle, as a background process. Its first scenario's
// redis server, killed and restarted by a server fault, waits idle in the run's pool while the
// second scenario's postgres server works: the signal must take both along.
class PostgresStopped : public PostgresService {
 protected:
  // Starts the run, waits for its postgres server, sends `signal`; the harness's exit code.
  int RunAndSignal(int signal) {
    auto args = Args("redis-server-kill-durable");
    args.insert(args.begin(), KILLPOINT_BIN_DIR "/killpoint");
    args.insert(args.begin() + 3, "tests/fixtures/services/upsert-long.json");
    args.insert(args.end(), {"--quiet", "--out", (root_ / "out").string()});
    auto p = Spawn({args, {}, KILLPOINT_SOURCE_DIR, root_ / "cli.out", root_ / "cli.err"});
    EXPECT_TRUE(p) << (p ? "" : p.error().message);
    if (!p) return -1;
    bool up = Eventually([&] {  // the server itself, not its initdb
      auto found = ProcessesIn(sandboxes_);
      return std::any_of(found.begin(), found.end(), [](const std::string& p) {
        return p.find("/bin/postgres -D ") != std::string::npos;
      });
    });
    EXPECT_TRUE(up) << Slurp(root_ / "cli.err");
    // redis-server works in its folder; its title names its address.
    auto found = ProcessesIn(sandboxes_);
    EXPECT_TRUE(std::any_of(found.begin(), found.end(),
                            [](const std::string& p) {
                              return p.find("redis-server 127.0.0.1:") != std::string::npos;
                            }))
        << "the first scenario's redis server, idle in the pool: "
        << ::testing::PrintToString(found);
    // A trial or two under way: the job's connections are open too.
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    ::kill(p.value()->pid(), signal);
    int code = p.value()->Wait(std::chrono::minutes(5)).ShellCode();
    EXPECT_TRUE(Eventually([&] { return ProcessesIn(sandboxes_).empty(); }))
        << ::testing::PrintToString(ProcessesIn(sandboxes_));
    return code;
  }
};

TEST_F(PostgresStopped, SigkillOfTheHarnessTakesItsServerAlong) {
  EXPECT_EQ(RunAndSignal(SIGKILL), 137);
}

TEST_F(PostgresStopped, SigintStopsTheServerWithTheRun) { EXPECT_EQ(RunAndSignal(SIGINT), 130); }

// MariaDB, with Debian's PyMySQL: INSERT ... ON DUPLICATE KEY UPDATE is idempotent only when the
// key it collides on is the business date. Keyed on an AUTO_INCREMENT id, a retry after a kill
// past the COMMIT never collides and adds a second row. In the same run (one mariadb-install-db),
// the server killed with SIGKILL right after the date-keyed job's COMMIT and restarted, with
// MariaDB's durable default: nothing lost. On the disk of the temporary folder, not in RAM: on
// tmpfs InnoDB memory-maps its redo log and even the fast setting loses nothing
// (docs/services.md, "Server faults"), so a durable run there could not tell the two apart. And
// the ambiguous COMMIT read from MySQL's client protocol: the proxy lets the first COMMIT of the
// attempt reach the server and drops its answer; the naive job's redo inserts twice, the keyed
// one's does not.
fs::path MariadbSandboxes() {
  return fs::temp_directory_path() / ("kp-e2e-services-mariadb-" + std::to_string(::getpid())) /
         "sandboxes";
}

const CliRun& MariadbRun() {
  static const CliRun run = [] {
    fs::path base = MariadbSandboxes().parent_path();
    fs::remove_all(base);
    CliRun r = RunKillpoint("run",
                            {"run", "tests/fixtures/services/mariadb-by-date.json",
                             "tests/fixtures/services/mariadb-by-id.json",
                             "tests/fixtures/services/mariadb-server-kill-durable.json",
                             "tests/fixtures/services/mariadb-ambiguous-naive.json",
                             "tests/fixtures/services/mariadb-ambiguous-keyed.json", "--jobs", "1",
                             "--sandbox-root", MariadbSandboxes().string()},
                            base);
    r.Results();  // read while the folder is there
    return r;
  }();
  return run;
}

// The scenario's one trial's server_fault events.
std::vector<Event> ServerFaultsOf(const CliRun& r, const std::string& scenario) {
  auto log = ReadHistoryLog(r.dir / Slug(scenario) / "history.jsonl");
  EXPECT_TRUE(log) << (log ? "" : log.error().message);
  std::vector<Event> out;
  if (!log) return out;
  for (const auto& [trial, events] : log.value()) {
    for (const Event& e : events) {
      if (e.type == event::ServerFault::kType || e.type == event::ServerResume::kType)
        out.push_back(e);
    }
  }
  return out;
}

// Whether a process under `sandboxes` whose command line has `server` is stopped (state T).
bool AServerIsStopped(const fs::path& sandboxes, const std::string& server) {
  for (const std::string& p : ProcessesIn(sandboxes)) {
    if (p.find(server) == std::string::npos) continue;
    std::string stat = Slurp("/proc/" + p.substr(0, p.find(':')) + "/stat");
    size_t close = stat.rfind(')');  // the state follows the name, which may hold spaces
    if (close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'T') {
      return true;
    }
  }
  return false;
}

class MariadbService : public PostgresService {  // its folders and the teardown's check
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists("/usr/sbin/mariadbd"))
        << "the mariadb service needs mariadb-server: run scripts/setup.sh";
    ASSERT_EQ(std::system("/usr/bin/python3 -c 'import pymysql' 2>/dev/null"), 0)
        << "the reference job needs python3-pymysql: run scripts/setup.sh";
    name_ = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    root_ = FreshDir("services-" + name_);
    sandboxes_ = MariadbSandboxes();  // the teardown's check: the shared run's servers
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(MariadbSandboxes().parent_path(), ec);
  }
};

TEST_F(MariadbService, OnDuplicateKeyHoldsKeyedOnTheDateAndDoublesKeyedOnAnId) {
  const CliRun& r = MariadbRun();
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  const nlohmann::json& results = r.Results();
  for (const auto& s : results["scenarios"]) {
    const std::string name = s["name"].get<std::string>();
    // a hold point, no kill; a lost COMMIT answer, no kill
    if (name == "services/mariadb-server-kill-durable" ||
        name.find("ambiguous") != std::string::npos)
      continue;
    EXPECT_GT(s["exercise"]["points"]["after_commit"]["fired"].get<int>(), 0) << s["exercise"];
  }
  nlohmann::json by_id =
      Invariant(results, "services/mariadb-settle-by-id", "one_row_per_biz_date");
  EXPECT_EQ(by_id["status"], "VIOLATED") << by_id.dump();
  EXPECT_THAT(by_id["examples"][0]["explanation"].get<std::string>(),
              HasSubstr("in service db (mariadb), biz_date=2026-11-01, rows=2"));
  // servers_own_tmpdir: @@tmpdir is the server's own folder, not the /tmp every server shares
  // (mariadb.cc's CommonOptions says why).
  for (const char* name : {"one_row_per_biz_date", "servers_own_tmpdir", "converges"}) {
    nlohmann::json i = Invariant(results, "services/mariadb-settle-by-date", name);
    EXPECT_EQ(i["status"], "held") << name << ": " << i.dump();
  }
}

// MariaDB's durable default (innodb_flush_log_at_trx_commit=1): a COMMIT returns once its redo log
// is written and flushed, so a kill -9 of every mariadbd process right after it loses nothing of
// what the server held: setup's two orders and the job's settlement row.
TEST_F(MariadbService, AServerKillAfterTheCommitLosesNothingWithDurableSettings) {
  const CliRun& r = MariadbRun();
  const std::string scenario = "services/mariadb-server-kill-durable";
  std::vector<Event> faults = ServerFaultsOf(r, scenario);
  ASSERT_EQ(faults.size(), 1u);
  const nlohmann::json& d = faults[0].data;
  EXPECT_EQ(d["action"], "kill");
  EXPECT_EQ(d["point"], "after_commit");
  EXPECT_EQ(d["kind"], "mariadb");
  EXPECT_EQ(d["durability"], "durable");
  EXPECT_EQ(d["before"], 3) << d.dump();
  EXPECT_EQ(d["lost"], 0) << d.dump();
  EXPECT_FALSE(d.contains("error")) << d.dump();
  for (const char* name : {"server_kill_loses_nothing", "converges"}) {
    nlohmann::json i = Invariant(r.Results(), scenario, name);
    EXPECT_EQ(i["status"], "held") << name << ": " << i.dump();
  }
}

TEST_F(MariadbService, ALostCommitAnswerMakesTheNaiveJobInsertTwiceAndNotTheKeyedOne) {
  const CliRun& r = MariadbRun();
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  ExpectDroppedAnswer(r, "services/mariadb-ambiguous-commit-naive");
  ExpectDroppedAnswer(r, "services/mariadb-ambiguous-commit-keyed");
  nlohmann::json naive =
      Invariant(r.Results(), "services/mariadb-ambiguous-commit-naive", "one_row_per_biz_date");
  EXPECT_EQ(naive["status"], "VIOLATED") << naive.dump();
  EXPECT_THAT(naive["examples"][0]["explanation"].get<std::string>(),
              HasSubstr("in service db (mariadb), biz_date=2026-11-01, rows=2"));
  EXPECT_THAT(naive["examples"][0]["plan"].get<std::string>(),
              HasSubstr("a1 drop_answer@net:db:commit#1"));
  for (const char* name : {"one_row_per_biz_date", "converges"}) {
    nlohmann::json i = Invariant(r.Results(), "services/mariadb-ambiguous-commit-keyed", name);
    EXPECT_EQ(i["status"], "held") << name << ": " << i.dump();
  }
}

// Redis (docs/services.md, "Redis"): the lock's two forms in one run, one trial each, killed
// while taking or holding the lock. The SETNX + EXPIRE form killed between its two commands
// leaves a lock that never expires, and the date never runs again; SET NX PX's lock expires
// and the retry takes it. Then SET NX PX's holder frozen past its TTL while a second instance
// runs: two holders, two payments.
fs::path RedisSandboxes() {
  return fs::temp_directory_path() / ("kp-e2e-services-redis-" + std::to_string(::getpid())) /
         "sandboxes";
}

const CliRun& RedisLockForms() {
  static const CliRun run = [] {
    fs::path base = RedisSandboxes().parent_path();
    fs::remove_all(base);
    CliRun r = RunKillpoint("run",
                            {"run", "tests/fixtures/services/redis_lock_setnx_expire.json",
                             "tests/fixtures/services/redis_lock_set_nx_px.json",
                             "tests/fixtures/services/redis_lock_set_nx_px_paused.json",
                             "tests/fixtures/services/redis-idempotency-lost-answer-naive.json",
                             "tests/fixtures/services/redis-idempotency-lost-answer-own-token.json",
                             "tests/fixtures/services/redis_lock_plain_del.json",
                             "scenarios/services/redis-lock-compare-and-delete.json", "--trials",
                             "1", "--jobs", "1", "--sandbox-root", RedisSandboxes().string()},
                            base);
    r.Results();  // read while the folder is there
    return r;
  }();
  return run;
}

class RedisService : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists(kRedisServer)) << "needs redis-server: run scripts/setup.sh";
    ASSERT_EQ(std::system("/usr/bin/python3 -c 'import redis' 2>/dev/null"), 0)
        << "the reference job needs python3-redis: run scripts/setup.sh";
  }
  void TearDown() override {
    // Eventually: the run's orphan guard (proc/orphan_guard.h), a fork of the harness that names
    // the sandbox root, ends a moment after the harness.
    EXPECT_TRUE(Eventually([] { return ProcessesIn(RedisSandboxes()).empty(); }))
        << "a server outlived the run: " << ::testing::PrintToString(ProcessesIn(RedisSandboxes()));
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(RedisSandboxes().parent_path(), ec);
  }
};

TEST_F(RedisService, ACrashBetweenSetnxAndExpireLeavesALockThatNeverExpires) {
  const CliRun& r = RedisLockForms();
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  const auto& s = r.Results()["scenarios"][0];
  ASSERT_EQ(s["name"], "services/redis-lock-setnx-expire");
  EXPECT_GT(s["exercise"]["points"]["after_setnx"]["fired"].get<int>(), 0) << s["exercise"];
  nlohmann::json lock = Invariant(r.Results(), "services/redis-lock-setnx-expire", "lock_expires");
  EXPECT_EQ(lock["status"], "VIOLATED") << lock.dump();
  EXPECT_THAT(lock["examples"][0]["explanation"].get<std::string>(),
              HasSubstr("1 of 1 key matching 'lock:*' in service cache (redis) has no expiry: "
                        "lock:2026-11-01 (no expiry)"));
  nlohmann::json converges =
      Invariant(r.Results(), "services/redis-lock-setnx-expire", "converges");
  EXPECT_EQ(converges["status"], "VIOLATED") << converges.dump();
  EXPECT_THAT(converges["examples"][0]["explanation"].get<std::string>(),
              HasSubstr("lock:2026-11-01 is held"));
}

TEST_F(RedisService, SetNxPxHoldsWithAKillWhileHoldingTheLock) {
  const CliRun& r = RedisLockForms();
  const auto& s = r.Results()["scenarios"][1];
  ASSERT_EQ(s["name"], "services/redis-lock-set-nx-px");
  EXPECT_GT(s["exercise"]["points"]["after_lock"]["fired"].get<int>(), 0) << s["exercise"];
  EXPECT_FALSE(s["must_hold_violated"].get<bool>()) << s.dump();
  for (const char* name : {"lock_expires", "every_date_done", "converges"}) {
    nlohmann::json i = Invariant(r.Results(), "services/redis-lock-set-nx-px", name);
    EXPECT_EQ(i["status"], "held") << name << ": " << i.dump();
  }
}

TEST_F(RedisService, AHolderFrozenPastItsTtlMakesTwoHoldersThatBothPay) {
  const CliRun& r = RedisLockForms();
  const auto& s = r.Results()["scenarios"][2];
  ASSERT_EQ(s["name"], "services/redis-lock-set-nx-px-paused");
  EXPECT_FALSE(s["must_hold_violated"].get<bool>()) << s.dump();
  nlohmann::json paid =
      Invariant(r.Results(), "services/redis-lock-set-nx-px-paused", "one_payment_per_date");
  ASSERT_EQ(paid["status"], "expected, shown") << paid.dump();
  const std::string why = paid["examples"][0]["explanation"].get<std::string>();
  EXPECT_THAT(why, HasSubstr("2 keys matching 'paid:*' in service cache (redis)"));
  EXPECT_THAT(why, HasSubstr("paid:2026-11-01:i1:"));  // the frozen holder, woken up
  EXPECT_THAT(why, HasSubstr("paid:2026-11-01:i2:"));  // the second instance
  EXPECT_THAT(paid["examples"][0]["plan"].get<std::string>(),
              HasSubstr("pause@after_check 200ms overlap@after_check"));
}

// In the same run, an idempotency key's claim (SET ... NX, read from RESP by the proxy: the
// point net:cache:set_nx) whose answer is dropped after the key was set. The naive job's retry
// finds the key, takes it for another run's claim and does not pay: nobody pays, and the key
// keeps the date's retries from paying; the job that chose its token before the first try
// recognises its own claim and pays once.
TEST_F(RedisService, ALostSetNxAnswerLeavesTheDateUnpaidUnlessTheRetryKnowsItsOwnToken) {
  const CliRun& r = RedisLockForms();
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  ExpectDroppedAnswer(r, "services/redis-idempotency-lost-answer-naive");
  ExpectDroppedAnswer(r, "services/redis-idempotency-lost-answer-own-token");
  nlohmann::json unpaid =
      Invariant(r.Results(), "services/redis-idempotency-lost-answer-naive", "every_date_paid");
  EXPECT_EQ(unpaid["status"], "VIOLATED") << unpaid.dump();
  EXPECT_THAT(unpaid["examples"][0]["explanation"].get<std::string>(),
              HasSubstr("0 keys matching 'paid:2026-11-01:*' in service cache (redis)"));
  EXPECT_THAT(unpaid["examples"][0]["plan"].get<std::string>(),
              HasSubstr("a1 drop_answer@net:cache:set_nx#1"));
  for (const char* name : {"one_payment_per_date", "every_date_paid", "converges"}) {
    nlohmann::json i =
        Invariant(r.Results(), "services/redis-idempotency-lost-answer-own-token", name);
    EXPECT_EQ(i["status"], "held") << name << ": " << i.dump();
  }
}

// explore runs its schedules on one server of each kind (explorer.cc's pool), reset at each
// schedule's start, as a run's worker does: a broker boot per schedule took seconds each.
TEST_F(RedisService, ExploreLendsOneServerToEverySchedule) {
  CliRun r = RunKillpoint("explore-redis",
                          {"explore", "scenarios/services/redis-lock-set-nx-px.json", "--trials",
                           "4", "--sandbox-root", RedisSandboxes().string()},
                          RedisSandboxes().parent_path());
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("no violation in 4 schedules"));
  EXPECT_THAT(r.out, HasSubstr("servers started: 1 (lent to every schedule"));
}

// The lock released by a plain DEL against the compare-and-delete, in three instances
// (docs/faults.md, "Three instances"; docs/catalogue.md, "Redis"): the first frozen past its
// lease after its check; the second takes the expired lock, checks it is still its own and is
// held before paying; the first wakes up, sees the lock is not its own, gives up (75) and
// releases; then a third instance runs, and then the second pays.
struct LockTrial {
  std::vector<Event> events;
  // Where the first instance-3 event of `type` (a failpoint: at `point`) is; -1 if none.
  long Third(const std::string& type, const std::string& point = "") const {
    for (size_t i = 0; i < events.size(); ++i) {
      const Event& e = events[i];
      if (e.type == type && InstanceOf(e) == 3 && (point.empty() || e.data["point"] == point))
        return static_cast<long>(i);
    }
    return -1;
  }
  long Index(const std::string& type) const {
    for (size_t i = 0; i < events.size(); ++i)
      if (events[i].type == type) return static_cast<long>(i);
    return -1;
  }
  const Event* FirstExit() const {  // instance 1's first attempt
    for (const Event& e : events)
      if (e.type == event::Exit::kType && InstanceOf(e) == 1) return &e;
    return nullptr;
  }
};

LockTrial LockTrialOf(const CliRun& r, const std::string& scenario) {
  auto log = ReadHistoryLog(r.dir / Slug(scenario) / "history.jsonl");
  EXPECT_TRUE(log) << (log ? "" : log.error().message);
  if (!log || log.value().empty()) return {};
  return {log.value().begin()->second};
}

TEST_F(RedisService, APlainDelReleaseFreesTheSecondsLockForAThirdInstanceAndTheDateIsPaidTwice) {
  const CliRun& r = RedisLockForms();
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  const std::string scenario = "services/redis-lock-plain-del";
  nlohmann::json paid = Invariant(r.Results(), scenario, "one_payment_per_date");
  ASSERT_EQ(paid["status"], "VIOLATED") << paid.dump();  // the fixture's must-hold: the gate fails
  const std::string why = paid["examples"][0]["explanation"].get<std::string>();
  EXPECT_THAT(why, HasSubstr("2 keys matching 'paid:*' in service cache (redis)"));
  EXPECT_THAT(why, HasSubstr("paid:2026-11-01:i2:"));  // the second, let go of last
  EXPECT_THAT(why, HasSubstr("paid:2026-11-01:i3:"));  // the third, in the freed lock
  EXPECT_THAT(paid["examples"][0]["plan"].get<std::string>(),
              HasSubstr("a1 pause@after_check 1200ms overlap@after_check/i2@before_pay"));
  LockTrial t = LockTrialOf(r, scenario);
  // The first gave up on its lost lock (and released it with its plain DEL) before the third
  // started; the third took the lock (passed after_lock) while the second was held.
  const Event* first = t.FirstExit();
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->data["code"], 75);
  EXPECT_THAT(first->data["stderr"].get<std::string>(), HasSubstr("lost lock:2026-11-01"));
  long held = t.Index(event::SecondHeld::kType), spawn3 = t.Third(event::Spawn::kType),
       took3 = t.Third(event::Failpoint::kType, "after_lock"), exit3 = t.Third(event::Exit::kType),
       released = t.Index(event::SecondRelease::kType);
  ASSERT_GE(held, 0);
  ASSERT_GE(took3, 0) << "the third never took the lock";
  EXPECT_LT(held, spawn3);
  EXPECT_LT(spawn3, took3);
  EXPECT_LT(exit3, released);
  EXPECT_EQ(t.events[exit3].data["code"], 0);
  for (const char* name : {"lock_expires", "every_date_done", "converges"}) {
    nlohmann::json i = Invariant(r.Results(), scenario, name);
    EXPECT_EQ(i["status"], "held") << name << ": " << i.dump();
  }
  // Its counterexample replays with the same events: every step of the three was forced.
  fs::path example =
      r.dir / Slug(scenario) / "counterexamples" / "trial-0-one_payment_per_date.json";
  ASSERT_TRUE(fs::exists(example)) << r.out;
  CliRun replay = RunKillpoint(
      "replay", {"replay", example.string(), "--sandbox-root", RedisSandboxes().string()},
      RedisSandboxes().parent_path());
  EXPECT_EQ(replay.exit_code, 1) << replay.err;  // violated again
  EXPECT_THAT(replay.out, HasSubstr("history: the same events in the same order"));
}

TEST_F(RedisService, ACompareAndDeleteReleaseKeepsTheSecondsLockAndTheThirdExitsBusy) {
  const CliRun& r = RedisLockForms();
  const std::string scenario = "services/redis-lock-compare-and-delete";
  for (const char* name :
       {"one_payment_per_date", "lock_expires", "every_date_done", "converges"}) {
    nlohmann::json i = Invariant(r.Results(), scenario, name);
    EXPECT_EQ(i["status"], "held") << name << ": " << i.dump();
  }
  LockTrial t = LockTrialOf(r, scenario);
  const Event* first = t.FirstExit();
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->data["code"], 75);
  EXPECT_THAT(first->data["stderr"].get<std::string>(), HasSubstr("lost lock:2026-11-01"));
  long spawn3 = t.Third(event::Spawn::kType), exit3 = t.Third(event::Exit::kType);
  ASSERT_GE(spawn3, 0);
  ASSERT_GE(exit3, 0);
  EXPECT_EQ(t.Third(event::Failpoint::kType, "after_lock"), -1) << "the third took the lock";
  EXPECT_EQ(t.events[exit3].data["code"], 75);  // busy: the second's lock was still there
  EXPECT_THAT(t.events[exit3].data["stderr"].get<std::string>(),
              HasSubstr("lock:2026-11-01 is held by"));
  EXPECT_LT(exit3, t.Index(event::SecondRelease::kType));
}

// The same two locks held at the fault proxy's command points instead of the job's own: the first
// before its GET that checks the lock, the second before its HSET that pays (docs/services.md,
// "Command points"). The plain DEL pays twice, the compare-and-delete once.
TEST_F(RedisService, CommandPointsHoldTheThreeInstancesWithoutTheJobsOwnPoints) {
  fs::path base = RedisSandboxes().parent_path() / "commands";
  CliRun r =
      RunKillpoint("run",
                   {"run", "tests/fixtures/services/redis-lock-plain-del-commands.json",
                    "tests/fixtures/services/redis-lock-compare-and-delete-commands.json",
                    "--trials", "1", "--jobs", "1", "--sandbox-root", RedisSandboxes().string()},
                   base);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;  // the plain DEL's double payment is expected
  nlohmann::json twice =
      Invariant(r.Results(), "services/redis-lock-plain-del-commands", "one_payment_per_date");
  EXPECT_EQ(twice["status"], "expected, shown") << twice.dump();
  EXPECT_THAT(twice["examples"][0]["plan"].get<std::string>(),
              HasSubstr("pause@net:cache:GET 1200ms overlap@net:cache:GET/i2@net:cache:HSET"));
  nlohmann::json once = Invariant(r.Results(), "services/redis-lock-compare-and-delete-commands",
                                  "one_payment_per_date");
  EXPECT_EQ(once["status"], "held") << once.dump();
  LockTrial t = LockTrialOf(r, "services/redis-lock-compare-and-delete-commands");
  long exit3 = t.Third(event::Exit::kType);
  ASSERT_GE(exit3, 0);
  EXPECT_EQ(t.events[exit3].data["code"], 75);  // busy: the second's lock was still there
}

// RabbitMQ, with Debian's pika: a consumer with prefetch 1 that acks after its effect, killed
// between the two, is redelivered the message; without a dedupe by message id in the effect's
// own transaction it applies it twice. No broker, epmd or Erlang helper outlives the run.
class RabbitmqService : public PostgresService {  // its folders and the teardown's check
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists("/usr/lib/rabbitmq/bin/rabbitmq-server"))
        << "the rabbitmq service needs rabbitmq-server: run scripts/setup.sh";
    ASSERT_EQ(std::system("/usr/bin/python3 -c 'import pika' 2>/dev/null"), 0)
        << "the reference job needs python3-pika: run scripts/setup.sh";
    name_ = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    root_ = FreshDir("services-" + name_);
    sandboxes_ = root_ / "sandboxes";
    erlang_before_ = ErlangProcesses(root_);
  }
  void TearDown() override {
    std::vector<std::string> left;
    for (const std::string& p : ErlangProcesses(root_)) {
      if (!erlang_before_.count(p)) left.push_back(p);
    }
    EXPECT_THAT(left, IsEmpty()) << "an Erlang process outlived the run";
    PostgresService::TearDown();
  }
  // Every live process of the Erlang runtime started for this test, as "pid: name": the broker's
  // VM (beam.smp), epmd, and the helpers the VM starts in sessions of their own, each with the
  // broker's environment (its HOME, a folder in `root`). Another run's brokers on the machine
  // (another test, another checkout) are not this test's. Not zombies: dead, waiting for a
  // parent (pid 1 here) to reap them.
  static std::set<std::string> ErlangProcesses(const fs::path& root) {
    std::set<std::string> found;
    DIR* proc = ::opendir("/proc");
    while (dirent* e = proc ? ::readdir(proc) : nullptr) {
      if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
      std::string comm = Slurp(fs::path("/proc") / e->d_name / "comm");
      std::string stat = Slurp(fs::path("/proc") / e->d_name / "stat");
      size_t paren = stat.rfind(')');  // the state follows the name, which may hold spaces
      if (paren == std::string::npos || stat.compare(paren, 3, ") Z") == 0) continue;  // dead
      if (Slurp(fs::path("/proc") / e->d_name / "environ").find(root.string()) ==
          std::string::npos) {
        continue;
      }
      for (const char* name : {"beam.smp", "epmd", "erl_child_setup", "inet_gethost"}) {
        if (comm == std::string(name) + "\n") found.insert(std::string(e->d_name) + ": " + name);
      }
    }
    if (proc) ::closedir(proc);
    return found;
  }
  std::set<std::string> erlang_before_;
};

// One run of two scenarios, one broker boot (seconds: docs/performance.md): the run's pool
// (service/server_pool.h) lends the first scenario's broker to the second. The consumer that acks
// after its effect without a dedupe (the fixture's must-hold: a failing gate, exit 1) applies a
// redelivered message twice; with the dedupe by message id in the effect's own transaction
// (scenarios/services/) it does not. The bundled run pins the rest of RabbitMQ's catalogue rows
// (catalogue_e2e_test.cc's Catalogue.OnARealRabbitmq).
TEST_F(RabbitmqService, AConsumerKilledBeforeItsAckAppliesTwiceUnlessItDedupesByMessageId) {
  auto args = Args("mq-plain");
  args.insert(args.begin() + 2, "scenarios/services/mq-consume-dedupe.json");
  // Every broker VM of the run (its command line names the sandbox root and boots rabbit; the
  // broker runs short-lived VMs of its own too), seen while the run goes, with its parent. A VM
  // forks its erl_child_setup, which has the VM's command line until its exec: a process whose
  // parent is a broker VM is not one.
  std::map<std::string, std::string> seen;  // pid: parent pid
  std::atomic<bool> done = false;
  std::thread watch([&] {
    while (!done.load()) {
      for (const std::string& p : ProcessesIn(sandboxes_)) {
        if (p.find("-s rabbit boot") == std::string::npos) continue;
        const std::string pid = p.substr(0, p.find(':'));
        std::string stat = Slurp(fs::path("/proc") / pid / "stat");  // "pid (comm) S ppid ..."
        size_t paren = stat.rfind(')');
        std::istringstream fields(paren == std::string::npos ? "" : stat.substr(paren + 1));
        std::string state, ppid;
        fields >> state >> ppid;
        seen.emplace(pid, ppid);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  CliRun r = RunKillpoint(name_, args, root_);
  done = true;
  watch.join();
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  std::set<std::string> brokers;
  for (const auto& [pid, ppid] : seen) {
    if (!seen.count(ppid)) brokers.insert(pid);
  }
  EXPECT_EQ(brokers.size(), 1u) << "one broker for both scenarios: "
                                << ::testing::PrintToString(seen);
  const nlohmann::json& results = r.Results();
  for (const auto& s : results["scenarios"]) {
    EXPECT_GT(s["exercise"]["points"]["after_effect"]["fired"].get<int>(), 0) << s["exercise"];
  }
  nlohmann::json plain = Invariant(results, "services/mq-consume-plain", "one_effect_per_message");
  EXPECT_EQ(plain["status"], "VIOLATED") << plain.dump();
  EXPECT_THAT(plain["examples"][0]["explanation"].get<std::string>(),
              HasSubstr("msg_id=2026-11-01/0, effects="));
  for (const char* scenario : {"services/mq-consume-plain", "services/mq-consume-dedupe"}) {
    nlohmann::json drained = Invariant(results, scenario, "queue_drained");
    EXPECT_EQ(drained["status"], "held") << scenario << ": " << drained.dump();
  }
  for (const char* name : {"one_effect_per_message", "converges"}) {
    nlohmann::json i = Invariant(results, "services/mq-consume-dedupe", name);
    EXPECT_EQ(i["status"], "held") << name << ": " << i.dump();
  }
}

// A broker stopped with SIGSTOP (every process of it: the VM, its epmd, its helpers) for 1.5 s
// at the consumer's before_consume: seen stopped (state T) while the run goes, the consumer's
// connection waits for it, and once it goes on the queue drains with nothing lost or doubled.
TEST_F(RabbitmqService, APausedBrokerIsStoppedAndTheConsumerWaitsForIt) {
  std::atomic<bool> done = false;
  std::atomic<bool> stopped_seen = false;
  std::thread watch([&] {
    while (!done.load()) {
      if (AServerIsStopped(sandboxes_, "-s rabbit boot")) stopped_seen = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  CliRun r = RunKillpoint(name_, Args("mq-broker-pause"), root_);
  done = true;
  watch.join();
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(stopped_seen.load()) << "no broker was seen stopped";
  std::vector<Event> faults = ServerFaultsOf(r, "services/mq-broker-pause");
  ASSERT_EQ(faults.size(), 2u);
  EXPECT_EQ(faults[0].data["action"], "pause");
  EXPECT_EQ(faults[0].data["service"], "mq");
  EXPECT_GE(faults[1].data["paused_ms"].get<int>(), 1500);
  for (const char* name :
       {"one_effect_per_message", "every_message_applied", "queue_drained", "converges"}) {
    nlohmann::json i = Invariant(r.Results(), "services/mq-broker-pause", name);
    EXPECT_EQ(i["status"], "held") << name << ": " << i.dump();
  }
}

// Server faults (docs/services.md, "Server faults"): the server itself killed with SIGKILL (every
// process) at a point of the job and restarted on the same data and port, or stopped with
// SIGSTOP for a while. One run of five scenarios, one trial each: postgres and redis, each with
// durable and fast settings, killed after the job's writes; redis paused before a PING.
// In RAM where there is /dev/shm (as the harness's default sandbox root): after a kill -9,
// PostgreSQL fsyncs its whole data folder before its recovery, seconds on a busy disk.
fs::path ServerFaultSandboxes() {
  fs::path ram = fs::is_directory("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
  return ram / ("kp-e2e-server-faults-" + std::to_string(::getpid())) / "sandboxes";
}

const CliRun& ServerFaultRun() {
  static const CliRun run = [] {
    fs::path base = ServerFaultSandboxes().parent_path();
    fs::remove_all(base);
    std::vector<std::string> args = {"run"};
    for (const char* f :
         {"pg-server-kill-durable", "pg-server-kill-fast", "redis-server-kill-durable",
          "redis-server-kill-fast", "redis-server-pause", "redis-server-pause-lock"}) {
      args.push_back(std::string("tests/fixtures/services/") + f + ".json");
    }
    for (const char* a : {"--jobs", "1", "--sandbox-root"}) args.push_back(a);
    args.push_back(ServerFaultSandboxes().string());
    CliRun r = RunKillpoint("run", args, base);
    r.Results();  // read while the folder is there
    return r;
  }();
  return run;
}

class ServerFaults : public PostgresService {
 protected:
  void SetUp() override {
    PostgresService::SetUp();
    ASSERT_TRUE(fs::exists(kRedisServer)) << "needs redis-server: run scripts/setup.sh";
    ASSERT_EQ(std::system("/usr/bin/python3 -c 'import redis' 2>/dev/null"), 0)
        << "the reference job needs python3-redis: run scripts/setup.sh";
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(ServerFaultSandboxes().parent_path(), ec);
  }
  // The run's: no server of it outlives it.
  void ExpectRunCleanedUp() {
    EXPECT_TRUE(Eventually([] { return ProcessesIn(ServerFaultSandboxes()).empty(); }))
        << ::testing::PrintToString(ProcessesIn(ServerFaultSandboxes()));
  }
  // The kill happened at the planned point, and the restarted server lost `lost` of what it held.
  void ExpectKill(const std::string& scenario, const std::string& point, bool lost) {
    std::vector<Event> faults = ServerFaultsOf(ServerFaultRun(), scenario);
    ASSERT_EQ(faults.size(), 1u) << scenario;
    const nlohmann::json& d = faults[0].data;
    EXPECT_EQ(d["action"], "kill");
    EXPECT_EQ(d["point"], point);
    EXPECT_GT(d["before"].get<int>(), 0) << d.dump();
    EXPECT_FALSE(d.contains("error")) << d.dump();
    if (lost) {
      EXPECT_GT(d["lost"].get<int>(), 0) << d.dump();
    } else {
      EXPECT_EQ(d["lost"], 0) << d.dump();
    }
  }
};

TEST_F(ServerFaults, APostgresKillAfterTheCommitLosesNothingWithDurableSettings) {
  const CliRun& r = ServerFaultRun();
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  ExpectRunCleanedUp();
  ExpectKill("services/pg-server-kill-durable", "after_commit", false);
  nlohmann::json i =
      Invariant(r.Results(), "services/pg-server-kill-durable", "server_kill_loses_nothing");
  EXPECT_EQ(i["status"], "held") << i.dump();
  EXPECT_EQ(Invariant(r.Results(), "services/pg-server-kill-durable", "converges")["status"],
            "held");
}

TEST_F(ServerFaults, WithFastSettingsThePostgresKillLosesTheCommittedRow) {
  const CliRun& r = ServerFaultRun();
  ExpectKill("services/pg-server-kill-fast", "after_commit", true);
  nlohmann::json i =
      Invariant(r.Results(), "services/pg-server-kill-fast", "server_kill_loses_nothing");
  EXPECT_EQ(i["status"], "expected, shown") << i.dump();
  EXPECT_THAT(i["examples"][0]["explanation"].get<std::string>(),
              HasSubstr("service db (postgres, fast) killed at after_commit#1, lost "));
  EXPECT_THAT(i["examples"][0]["explanation"].get<std::string>(),
              HasSubstr("daily_settlement_upsert (2026-11-01,350,"));
  EXPECT_THAT(i["examples"][0]["plan"].get<std::string>(),
              HasSubstr("a1 kill@server:db@after_commit"));
}

TEST_F(ServerFaults, ARedisKillLosesItsKeysWithoutPersistenceAndNoneWithAnAppendOnlyFile) {
  const CliRun& r = ServerFaultRun();
  ExpectKill("services/redis-server-kill-durable", "after_write", false);
  EXPECT_EQ(Invariant(r.Results(), "services/redis-server-kill-durable",
                      "server_kill_loses_nothing")["status"],
            "held");
  ExpectKill("services/redis-server-kill-fast", "after_write", true);
  nlohmann::json i =
      Invariant(r.Results(), "services/redis-server-kill-fast", "server_kill_loses_nothing");
  EXPECT_EQ(i["status"], "expected, shown") << i.dump();
  EXPECT_THAT(i["examples"][0]["explanation"].get<std::string>(),
              HasSubstr("lost 2 of 2 rows or keys it held before the kill: list log:2026-11-01 = "
                        "[paid]; string paid:2026-11-01 = 1"));
}

// The job's PING after before_ping waits for the server (the job exits 3 unless it waited 600
// ms of the 800: converges); the history has the pause and the resume.
TEST_F(ServerFaults, APausedRedisAnswersOnlyOnceItGoesOn) {
  const CliRun& r = ServerFaultRun();
  EXPECT_EQ(Invariant(r.Results(), "services/redis-server-pause", "converges")["status"], "held");
  std::vector<Event> faults = ServerFaultsOf(r, "services/redis-server-pause");
  ASSERT_EQ(faults.size(), 2u);
  EXPECT_EQ(faults[0].type, event::ServerFault::kType);
  EXPECT_EQ(faults[0].data["action"], "pause");
  EXPECT_EQ(faults[0].data["duration_ms"], 800);
  EXPECT_EQ(faults[1].type, event::ServerResume::kType);
  EXPECT_GE(faults[1].data["paused_ms"].get<int>(), 800);
}

// A lock's lease runs out while its server is stopped, though its holder never stalled: the
// job takes lock:DATE for 300 ms, the server is paused 800 ms at after_lock, and the job's next
// command finds the lock gone (it exits 3 if it is there: converges).
TEST_F(ServerFaults, ALockTtlRunsOutWhileTheRedisServerIsPaused) {
  const CliRun& r = ServerFaultRun();
  EXPECT_EQ(Invariant(r.Results(), "services/redis-server-pause-lock", "converges")["status"],
            "held");
  std::vector<Event> faults = ServerFaultsOf(r, "services/redis-server-pause-lock");
  ASSERT_EQ(faults.size(), 2u);
  EXPECT_EQ(faults[0].data["action"], "pause");
  EXPECT_EQ(faults[0].data["point"], "after_lock");
  EXPECT_GE(faults[1].data["paused_ms"].get<int>(), 800);
}

// SIGINT or SIGKILL of the harness while a server is stopped (a 30 s pause) leaves no process
// of it, stopped or not: postgres for SIGINT (its backends, in sessions of their own, would
// outlive a SIGKILL of the postmaster's group while stopped), redis for SIGKILL.
class ServerPauseStopped : public PostgresService {
 protected:
  // In RAM, as ServerFaultSandboxes: a postgres server's template and copy take seconds on a
  // busy disk.
  void SetUp() override {
    PostgresService::SetUp();
    ram_ = ServerFaultSandboxes().parent_path().parent_path() /
           ("kp-e2e-pause-" + name_ + "-" + std::to_string(::getpid()));
    fs::remove_all(ram_);
    sandboxes_ = ram_ / "sandboxes";
  }
  void TearDown() override {
    PostgresService::TearDown();
    std::error_code ec;
    fs::remove_all(ram_, ec);
  }
  fs::path ram_;
  int RunAndSignal(const std::string& scenario, const std::string& server, int signal) {
    std::vector<std::string> args = {KILLPOINT_BIN_DIR "/killpoint",
                                     "run",
                                     "tests/fixtures/services/" + scenario + ".json",
                                     "--quiet",
                                     "--jobs",
                                     "1",
                                     "--sandbox-root",
                                     sandboxes_.string(),
                                     "--out",
                                     (root_ / "out").string()};
    auto p = Spawn({args, {}, KILLPOINT_SOURCE_DIR, root_ / "cli.out", root_ / "cli.err"});
    EXPECT_TRUE(p) << (p ? "" : p.error().message);
    if (!p) return -1;
    EXPECT_TRUE(Eventually([&] { return AServerIsStopped(sandboxes_, server); }))
        << Slurp(root_ / "cli.err");
    ::kill(p.value()->pid(), signal);
    auto signalled = std::chrono::steady_clock::now();
    int code = p.value()->Wait(std::chrono::minutes(5)).ShellCode();
    // The stopped server is let go on first (SIGCONT): its SIGQUIT works at once, instead of
    // after the 10 s a server that does not exit is given before its SIGKILL.
    EXPECT_LT(std::chrono::steady_clock::now() - signalled, std::chrono::seconds(8));
    EXPECT_TRUE(Eventually([&] { return ProcessesIn(sandboxes_).empty(); }))
        << ::testing::PrintToString(ProcessesIn(sandboxes_));
    return code;
  }
};

TEST_F(ServerPauseStopped, SigintDuringAServerPauseLeavesNoServer) {
  EXPECT_EQ(RunAndSignal("pg-server-pause-long", "postgres: ", SIGINT), 130);
}

TEST_F(ServerPauseStopped, SigkillDuringAServerPauseLeavesNoServer) {
  EXPECT_EQ(RunAndSignal("redis-server-pause-long", "redis-server", SIGKILL), 137);
}

}  // namespace
}  // namespace killpoint::testing
