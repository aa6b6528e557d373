// kp-catalogue lock with two instances as real processes: the first is held at a failpoint
// (and SIGSTOPped, as a GC pause or a stopped VM would), the second runs meanwhile. What each
// lock stops and what it does not: a lease stops a live overlapping holder; a lease that
// expires while its holder is paused lets two holders pay, unless the write checks a fencing
// token; flock is kept by a paused holder and dropped by a dead one; no lock stops a rerun.
// The only waits are lower bounds (a paused holder is resumed after its TTL has passed), so a
// slow machine makes the tests slower, never wrong.
#include <SQLiteCpp/SQLiteCpp.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <condition_variable>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "fake_controller.h"
#include "loopback.h"
#include "subprocess.h"
#include "temp_dir.h"

namespace killpoint::testing {
namespace {

using ::testing::HasSubstr;

constexpr const char* kDate = "2026-11-05";

// Answers CONTINUE to every HIT but holds the first process that reaches `hold_at` until
// Release(): the harness's view of a job stopped at a point.
class HoldingController {
 public:
  explicit HoldingController(std::string hold_at)
      : hold_at_(std::move(hold_at)), accept_([this] { AcceptLoop(); }) {}
  ~HoldingController() {
    Release();
    listener_.Wake();
    accept_.join();
  }
  std::string address() const { return listener_.address(); }
  bool WaitHeld() {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(30), [&] { return held_; });
  }
  void Release() {
    std::lock_guard lock(mu_);
    released_ = true;
    cv_.notify_all();
  }

 private:
  void AcceptLoop() {
    std::vector<std::thread> serving;
    while (auto c = listener_.Accept(std::chrono::milliseconds(-1))) {
      serving.emplace_back([this, conn = std::move(*c)]() mutable { Serve(std::move(conn)); });
    }
    for (auto& t : serving) t.join();
  }
  void Serve(Connection c) {
    while (auto line = c.ReadLine(std::chrono::minutes(1))) {
      std::istringstream in(*line);
      std::string verb, name;
      in >> verb >> name;
      if (name == hold_at_) {
        std::unique_lock lock(mu_);
        if (!held_) {
          held_ = true;
          cv_.notify_all();
          cv_.wait_for(lock, std::chrono::minutes(1), [&] { return released_; });
        }
      }
      c.Send("CONTINUE\n");
    }
  }

  const std::string hold_at_;
  LoopbackListener listener_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool held_ = false;      // guarded by mu_
  bool released_ = false;  // guarded by mu_
  std::thread accept_;
};

class LockTest : public ::testing::Test {
 protected:
  SpawnSpec Spec(const std::string& variant, int instance, const std::string& ctl, int64_t ttl_ms,
                 int64_t wait_ms) {
    SpawnSpec spec{{std::string(KILLPOINT_BIN_DIR) + "/kp-catalogue", "lock", "--variant", variant,
                    "--ttl-ms", std::to_string(ttl_ms), "--wait-ms", std::to_string(wait_ms)},
                   {{"KILLPOINT_WORKDIR", dir_.path()},
                    {"KILLPOINT_BIZ_DATE", kDate},
                    {"KILLPOINT_INSTANCE", std::to_string(instance)}},
                   dir_.path()};
    if (!ctl.empty()) spec.env["KILLPOINT_CTL"] = ctl;
    return spec;
  }
  // Instance 2 runs to its end, without waiting for the lock.
  ProcessResult Second(const std::string& variant, int64_t ttl_ms) {
    return RunProcess(Spec(variant, 2, "", ttl_ms, 0));
  }
  std::multiset<int64_t> PayingInstances() {
    SQLite::Database db(dir_.File("lock.db"), SQLite::OPEN_READWRITE);
    SQLite::Statement q(db, "SELECT instance FROM payouts WHERE biz_date = ?1");
    q.bind(1, kDate);
    std::multiset<int64_t> out;
    while (q.executeStep()) out.insert(q.getColumn(0).getInt64());
    return out;
  }

  // Instance 1 held at `point` and stopped until `ttl_ms` (and a margin) have passed on the real
  // clock; instance 2 runs meanwhile; then instance 1 goes on. Returns both results.
  std::pair<ProcessResult, ProcessResult> PausedPastTtl(const std::string& variant,
                                                        const std::string& point, int64_t ttl_ms) {
    HoldingController controller(point);
    Subprocess first(Spec(variant, 1, controller.address(), ttl_ms, 0));
    EXPECT_TRUE(controller.WaitHeld()) << "instance 1 never reached " << point;
    ::kill(first.pid(), SIGSTOP);
    std::this_thread::sleep_for(std::chrono::milliseconds(ttl_ms + 200));  // a lower bound
    ProcessResult second = Second(variant, ttl_ms);
    ::kill(first.pid(), SIGCONT);
    controller.Release();
    return {first.Wait(), second};
  }

  TempDir dir_;
};

TEST_F(LockTest, ALeaseStopsASecondInstanceWhileItsHolderIsAlive) {
  HoldingController controller("after_lock");
  Subprocess first(Spec("lease", 1, controller.address(), 60000, 0));
  ASSERT_TRUE(controller.WaitHeld());
  ProcessResult second = Second("lease", 60000);
  EXPECT_EQ(second.exit_code, 75) << second;
  EXPECT_THAT(second.err, HasSubstr("the payout lease is held by instance 1"));
  controller.Release();
  ProcessResult r = first.Wait();
  EXPECT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(PayingInstances(), (std::multiset<int64_t>{1}));
}

TEST_F(LockTest, ALeaseThatExpiresWhileItsHolderIsPausedLetsTwoHoldersPay) {
  auto [first, second] = PausedPastTtl("lease", "after_check", 200);
  EXPECT_EQ(second.exit_code, 0) << second;
  EXPECT_EQ(first.exit_code, 0) << first;
  EXPECT_EQ(PayingInstances(), (std::multiset<int64_t>{1, 2}));
}

TEST_F(LockTest, AFencingTokenStopsTheHolderThatLostItsLease) {
  auto [first, second] = PausedPastTtl("lease-fencing", "after_check", 200);
  EXPECT_EQ(second.exit_code, 0) << second;
  EXPECT_EQ(first.exit_code, 75) << first;
  EXPECT_THAT(first.err, HasSubstr("fenced off: this run's lease token is 1, the lock's is now 2"));
  EXPECT_EQ(PayingInstances(), (std::multiset<int64_t>{2}));
}

TEST_F(LockTest, FlockIsKeptByAPausedHolder) {
  auto [first, second] = PausedPastTtl("flock", "after_check", 200);
  EXPECT_EQ(second.exit_code, 75) << second;
  EXPECT_THAT(second.err, HasSubstr("payout.lock is locked by another run"));
  EXPECT_EQ(first.exit_code, 0) << first;
  EXPECT_EQ(PayingInstances(), (std::multiset<int64_t>{1}));
}

TEST_F(LockTest, ACrashedLeaseHolderBlocksOthersUntilTheLeaseExpires) {
  {
    FakeController killer("after_lock");
    ProcessResult dead = RunProcess(Spec("lease", 1, killer.address(), 60000, 0));
    EXPECT_EQ(dead.term_signal, SIGKILL) << dead;
  }
  ProcessResult blocked = Second("lease", 60000);
  EXPECT_EQ(blocked.exit_code, 75) << blocked;
  EXPECT_TRUE(PayingInstances().empty());
}

TEST_F(LockTest, ACrashedFlockHolderBlocksNobody) {
  {
    FakeController killer("after_lock");
    ProcessResult dead = RunProcess(Spec("flock", 1, killer.address(), 60000, 0));
    EXPECT_EQ(dead.term_signal, SIGKILL) << dead;
  }
  ProcessResult next = Second("flock", 60000);
  EXPECT_EQ(next.exit_code, 0) << next;
  EXPECT_EQ(PayingInstances(), (std::multiset<int64_t>{2}));
}

TEST_F(LockTest, NoLockStopsARerunOfYesterdayOnlyTheCheckDoes) {
  for (int run = 0; run < 2; ++run) {
    ProcessResult r = RunProcess(Spec("lease-no-idempotency", 1, "", 60000, 0));
    ASSERT_EQ(r.exit_code, 0) << r;
  }
  EXPECT_EQ(PayingInstances().size(), 2u);
}

TEST_F(LockTest, TheCheckMakesARerunOfYesterdayHarmless) {
  for (const char* variant : {"lease", "lease-fencing", "flock"}) {
    ProcessResult r = RunProcess(Spec(variant, 1, "", 60000, 0));
    ASSERT_EQ(r.exit_code, 0) << variant << r;
  }
  EXPECT_EQ(PayingInstances().size(), 1u);
}

}  // namespace
}  // namespace killpoint::testing
