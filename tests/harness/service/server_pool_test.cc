// The run's pool of servers (service/server_pool.h, docs/services.md "Isolation"), with real
// redis servers (a start costs a few ms): a server given back is lent again instead of another
// starting, one per borrower at a time and per durability, and it outlives the thread that first
// borrowed it (a scenario's worker): its parent-death signal is its own thread's.
#include "service/server_pool.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <thread>

#include "service/redis/redis.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;

class ServerPoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists(kRedisServer)) << "needs redis-server: run scripts/setup.sh";
    std::string dir = (fs::temp_directory_path() / "kp-server-pool-XXXXXX").string();
    ASSERT_NE(::mkdtemp(dir.data()), nullptr);
    root_ = dir;
    // `nobody` (the server's user when the tests run as root) passes through it.
    fs::permissions(root_, fs::perms::others_exec, fs::perm_options::add);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  Result<HostedServer> Borrow(bool fast = false) {
    return pool_->Borrow("cache", "redis", root_, {}, fast);
  }
  void Return(HostedServer s, bool fast = false) {
    pool_->Return("redis", root_, fast, std::move(s));
  }
  static int Port(HostedServer& s) {
    auto a = s.service->Reset();
    EXPECT_TRUE(a) << (a ? "" : a.error().message);
    return a ? a.value().port : -1;
  }

  fs::path root_;
  std::unique_ptr<ServerPool> pool_ = std::make_unique<ServerPool>();
};

TEST_F(ServerPoolTest, LendsAServerGivenBackInsteadOfStartingAnother) {
  auto a = Borrow();
  ASSERT_TRUE(a) << a.error().message;
  int port = Port(a.value());
  Return(std::move(a.value()));
  auto b = Borrow();
  ASSERT_TRUE(b) << b.error().message;
  EXPECT_EQ(Port(b.value()), port);
  EXPECT_EQ(pool_->started(), 1);
  // One borrower at a time: a second one now gets a server of its own, as does another
  // durability.
  auto c = Borrow();
  auto fast = Borrow(true);
  ASSERT_TRUE(c && fast);
  EXPECT_NE(Port(c.value()), port);
  int fast_port = Port(fast.value());
  EXPECT_EQ(pool_->started(), 3);
  Return(std::move(b.value()));
  Return(std::move(c.value()));
  Return(std::move(fast.value()), true);
  auto d = Borrow(true);
  ASSERT_TRUE(d);
  EXPECT_EQ(Port(d.value()), fast_port);
  EXPECT_EQ(pool_->started(), 3);
  Return(std::move(d.value()), true);
}

TEST_F(ServerPoolTest, AServerOutlivesTheThreadThatFirstBorrowedIt) {
  int port = 0;
  std::thread worker([&] {
    auto s = Borrow();
    ASSERT_TRUE(s) << s.error().message;
    port = Port(s.value());
    Return(std::move(s.value()));
  });
  worker.join();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // a parent-death signal's time
  auto s = Borrow();
  ASSERT_TRUE(s);
  EXPECT_EQ(Port(s.value()), port);  // it still answers its reset
  EXPECT_EQ(pool_->started(), 1);
  Return(std::move(s.value()));
}

}  // namespace
}  // namespace killpoint
