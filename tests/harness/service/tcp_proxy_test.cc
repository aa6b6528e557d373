#include "service/tcp_proxy.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace killpoint {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

std::string WireInt32(uint32_t v) { return {char(v >> 24), char(v >> 16), char(v >> 8), char(v)}; }
std::string WireQuery(const std::string& sql) {
  return 'Q' + WireInt32(uint32_t(sql.size() + 5)) + sql + '\0';
}
std::string WireStartup() { return WireInt32(8) + WireInt32(196608); }  // untyped, a bare version

// A loopback server that echoes every byte back and remembers what it received.
class EchoServer {
 public:
  EchoServer() {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    ::bind(listener_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::listen(listener_, 16);
    ::getsockname(listener_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { Accept(); });
  }
  ~EchoServer() {
    ::shutdown(listener_, SHUT_RDWR);
    thread_.join();
    ::close(listener_);
    for (auto& t : conns_) t.join();
  }
  int port() const { return port_; }
  std::string received() {
    std::lock_guard lock(mu_);
    return received_;
  }

 private:
  void Accept() {
    for (;;) {
      int fd = ::accept(listener_, nullptr, nullptr);
      if (fd < 0) return;
      conns_.emplace_back([this, fd] { Echo(fd); });
    }
  }
  void Echo(int fd) {
    char buf[4096];
    for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) {
      {
        std::lock_guard lock(mu_);
        received_.append(buf, size_t(n));
      }
      if (::send(fd, buf, size_t(n), MSG_NOSIGNAL) != n) break;
    }
    ::close(fd);
  }
  int listener_ = -1, port_ = 0;
  std::thread thread_;
  std::vector<std::thread> conns_;
  std::mutex mu_;
  std::string received_;
};

int Connect(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(uint16_t(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  return fd;
}

// Reads until `want` bytes came, the peer closed, or 2 s passed. `cut`: whether the peer
// closed or reset.
std::string ReadUpTo(int fd, size_t want, bool* cut = nullptr) {
  std::string out;
  char buf[4096];
  auto until = Clock::now() + std::chrono::seconds(2);
  while (out.size() < want && Clock::now() < until) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) {
      if (cut) *cut = true;
      return out;
    }
    out.append(buf, size_t(n));
  }
  if (cut) *cut = false;
  return out;
}

// Sends `bytes` and reads its echo (or what the proxy lets through).
std::string RoundTrip(int fd, const std::string& bytes, bool* cut = nullptr) {
  ssize_t sent = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  if (cut != nullptr && sent < 0) {  // the reset came first
    *cut = true;
    return "";
  }
  EXPECT_EQ(sent, ssize_t(bytes.size()));
  return ReadUpTo(fd, bytes.size(), cut);
}

// Sends `bytes` and reads `want` bytes back (what the proxy lets through before a hold).
std::string Send(int fd, const std::string& bytes, size_t want) {
  EXPECT_EQ(::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL), ssize_t(bytes.size()));
  return ReadUpTo(fd, want);
}

struct Fired {
  std::mutex mu;
  std::vector<ProxyFault> faults;
  ProxyFired Tell() {
    return [this](const ProxyFault& f) {
      std::lock_guard lock(mu);
      faults.push_back(f);
    };
  }
  size_t count() {
    std::lock_guard lock(mu);
    return faults.size();
  }
};

class TcpProxyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto p = TcpProxy::Start("127.0.0.1", echo_.port(), WireProtocol::kPostgres);
    ASSERT_TRUE(p) << p.error().message;
    proxy_ = std::move(p.value());
  }
  EchoServer echo_;
  Fired fired_;  // before proxy_: the proxy, which may tell it, goes first
  std::unique_ptr<TcpProxy> proxy_;
};

TEST_F(TcpProxyTest, RelaysBothWaysUnarmed) {
  int fd = Connect(proxy_->port());
  std::string big(200 * 1024, 'x');  // more than a socket buffer and the proxy's chunk
  EXPECT_EQ(RoundTrip(fd, WireStartup() + WireQuery("COMMIT")),
            WireStartup() + WireQuery("COMMIT"));
  EXPECT_EQ(RoundTrip(fd, big).size(), big.size());
  ::close(fd);
}

TEST_F(TcpProxyTest, DropAnswerLetsTheCommitReachTheServerAndCutsTheClient) {
  proxy_->Arm({kNetCommit, NetAction::kDropAnswer, 2, 0}, fired_.Tell());
  int fd = Connect(proxy_->port());
  EXPECT_EQ(RoundTrip(fd, WireStartup() + WireQuery("BEGIN")), WireStartup() + WireQuery("BEGIN"));
  EXPECT_EQ(RoundTrip(fd, WireQuery("COMMIT")), WireQuery("COMMIT"));  // the first: answered
  bool cut = false;
  EXPECT_EQ(RoundTrip(fd, WireQuery("END"), &cut), "");  // the second: reached it, never answered
  EXPECT_TRUE(cut);
  EXPECT_EQ(echo_.received(),
            WireStartup() + WireQuery("BEGIN") + WireQuery("COMMIT") + WireQuery("END"));
  ASSERT_EQ(fired_.count(), 1u);
  EXPECT_EQ(fired_.faults[0].hit, 2);
  ::close(fd);
}

TEST_F(TcpProxyTest, ResetCutsBeforeTheCommitReachesTheServer) {
  proxy_->Arm({kNetCommit, NetAction::kReset, 1, 0}, fired_.Tell());
  int fd = Connect(proxy_->port());
  EXPECT_EQ(RoundTrip(fd, WireStartup() + WireQuery("BEGIN")), WireStartup() + WireQuery("BEGIN"));
  bool cut = false;
  EXPECT_EQ(RoundTrip(fd, WireQuery("COMMIT"), &cut), "");
  EXPECT_TRUE(cut);
  std::this_thread::sleep_for(milliseconds(50));
  EXPECT_EQ(echo_.received(), WireStartup() + WireQuery("BEGIN"));
  EXPECT_EQ(fired_.count(), 1u);
  ::close(fd);
}

TEST_F(TcpProxyTest, DelayHoldsTheCommitsAnswer) {
  proxy_->Arm({kNetCommit, NetAction::kDelay, 1, 300}, fired_.Tell());
  int fd = Connect(proxy_->port());
  EXPECT_EQ(RoundTrip(fd, WireStartup()), WireStartup());
  auto start = Clock::now();
  EXPECT_EQ(RoundTrip(fd, WireQuery("COMMIT")), WireQuery("COMMIT"));
  EXPECT_GE(Clock::now() - start, milliseconds(300));
  start = Clock::now();
  EXPECT_EQ(RoundTrip(fd, WireQuery("COMMIT")), WireQuery("COMMIT"));  // the next one is not held
  EXPECT_LT(Clock::now() - start, milliseconds(250));
  ::close(fd);
}

TEST_F(TcpProxyTest, RefuseResetsNewConnectionsForItsWindow) {
  proxy_->Arm({kNetConnect, NetAction::kRefuse, 2, 300}, fired_.Tell());
  int first = Connect(proxy_->port());
  EXPECT_EQ(RoundTrip(first, "a"), "a");
  bool cut = false;
  int second = Connect(proxy_->port());
  EXPECT_EQ(RoundTrip(second, "b", &cut), "");
  EXPECT_TRUE(cut);
  int third = Connect(proxy_->port());  // inside the window
  EXPECT_EQ(RoundTrip(third, "c", &cut), "");
  EXPECT_TRUE(cut);
  EXPECT_EQ(RoundTrip(first, "d"), "d");  // an open connection is left alone
  std::this_thread::sleep_for(milliseconds(350));
  int fourth = Connect(proxy_->port());
  EXPECT_EQ(RoundTrip(fourth, "e"), "e");
  EXPECT_EQ(fired_.count(), 1u);
  for (int fd : {first, second, third, fourth}) ::close(fd);
}

TEST_F(TcpProxyTest, CutAllClosesOpenConnectionsAndArmCountsAfresh) {
  proxy_->Arm({kNetCommit, NetAction::kReset, 1, 0}, fired_.Tell());
  int fd = Connect(proxy_->port());
  EXPECT_EQ(RoundTrip(fd, WireStartup()), WireStartup());
  proxy_->CutAll();
  bool cut = false;
  ReadUpTo(fd, 1, &cut);
  EXPECT_TRUE(cut);
  ::close(fd);
  proxy_->Disarm();
  fd = Connect(proxy_->port());
  EXPECT_EQ(RoundTrip(fd, WireStartup() + WireQuery("COMMIT")),
            WireStartup() + WireQuery("COMMIT"));
  EXPECT_EQ(fired_.count(), 0u);
  ::close(fd);
}

// A fault at a command point (net:db:UPDATE): counted by its verb, stalled before it goes on
// (the job waits there; other connections do not), the next one not.
TEST_F(TcpProxyTest, StallHoldsACommandOfAVerbBeforeItReachesTheServer) {
  proxy_->Arm({"UPDATE", NetAction::kStall, 2, 300}, fired_.Tell());
  int fd = Connect(proxy_->port());
  const std::string update = WireQuery("UPDATE t SET a = 1");
  EXPECT_EQ(RoundTrip(fd, WireStartup() + update), WireStartup() + update);  // the first goes
  auto start = Clock::now();
  ASSERT_EQ(::send(fd, update.data(), update.size(), MSG_NOSIGNAL), ssize_t(update.size()));
  int other = Connect(proxy_->port());
  EXPECT_EQ(RoundTrip(other, WireStartup()), WireStartup());  // not stalled
  EXPECT_LT(Clock::now() - start, milliseconds(250));
  EXPECT_EQ(echo_.received(), WireStartup() + update + WireStartup());  // the second waits
  EXPECT_EQ(ReadUpTo(fd, update.size()), update);
  EXPECT_GE(Clock::now() - start, milliseconds(300));
  EXPECT_EQ(fired_.count(), 1u);
  for (int f : {fd, other}) ::close(f);
}

TEST_F(TcpProxyTest, ResetAtACommandPointCutsBeforeItReachesTheServer) {
  proxy_->Arm({"INSERT", NetAction::kReset, 1, 0}, fired_.Tell());
  int fd = Connect(proxy_->port());
  EXPECT_EQ(RoundTrip(fd, WireStartup() + WireQuery("BEGIN")), WireStartup() + WireQuery("BEGIN"));
  bool cut = false;
  EXPECT_EQ(RoundTrip(fd, WireQuery("insert into t values (1)"), &cut), "");
  EXPECT_TRUE(cut);
  EXPECT_EQ(echo_.received(), WireStartup() + WireQuery("BEGIN"));
  ::close(fd);
}

// The other framings: a Redis pipeline whose second command is a SET ... NX; the proxy lets the
// commands up to it through, drops the answers and cuts, and the command after never reaches
// the server.
TEST_F(TcpProxyTest, DropAnswerAtASetNxInAPipelineForwardsUpToItsEnd) {
  auto redis = TcpProxy::Start("127.0.0.1", echo_.port(), WireProtocol::kRedis);
  ASSERT_TRUE(redis) << redis.error().message;
  redis.value()->Arm({kNetSetNx, NetAction::kDropAnswer, 1, 0}, fired_.Tell());
  int fd = Connect(redis.value()->port());
  const std::string upto = "*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\n1\r\nSET lock t PX 150 NX\r\n";
  bool cut = false;
  EXPECT_EQ(RoundTrip(fd, upto + "GET a\r\n", &cut), "");
  EXPECT_TRUE(cut);
  EXPECT_EQ(echo_.received(), upto);
  ASSERT_EQ(fired_.count(), 1u);
  EXPECT_EQ(fired_.faults[0].moment, kNetSetNx);
  ::close(fd);
}

TEST_F(TcpProxyTest, AMysqlCommitIsCountedAfterTheHandshake) {
  auto mysql = TcpProxy::Start("127.0.0.1", echo_.port(), WireProtocol::kMysql);
  ASSERT_TRUE(mysql) << mysql.error().message;
  mysql.value()->Arm({kNetCommit, NetAction::kReset, 1, 0}, fired_.Tell());
  auto packet = [](char sequence, const std::string& payload) {
    return std::string{char(payload.size()), 0, 0, sequence} + payload;
  };
  int fd = Connect(mysql.value()->port());
  const std::string start =
      packet(1, std::string("\x05\xa2\x0e\x00", 4) + std::string(28, '\0')) + packet(0,
                                                                                     "\x03"
                                                                                     "BEGIN");
  EXPECT_EQ(RoundTrip(fd, start), start);
  bool cut = false;
  EXPECT_EQ(RoundTrip(fd,
                      packet(0,
                             "\x03"
                             "COMMIT"),
                      &cut),
            "");
  EXPECT_TRUE(cut);
  EXPECT_EQ(echo_.received(), start);
  EXPECT_EQ(fired_.count(), 1u);
  ::close(fd);
}

// The command hook (docs/services.md, "Command points"): what it was asked, in order.
struct Asked {
  std::mutex mu;
  std::vector<std::string> calls;  // "VERB" before, "VERB+" after
  std::string kill_before, ask_after, hold;
  uint64_t held = 0;  // the ticket of the command held
  CommandHook Hook() {
    return [this](const std::string& verb, bool after, uint64_t ticket) {
      std::lock_guard lock(mu);
      calls.push_back(verb + (after ? "+" : ""));
      if (after) return CommandStep::kKilled;
      if (verb == kill_before) return CommandStep::kKilled;
      if (verb == hold && held == 0) {
        held = ticket;
        return CommandStep::kHold;
      }
      return verb == ask_after ? CommandStep::kAskAfter : CommandStep::kForward;
    };
  }
  uint64_t Held() {
    std::lock_guard lock(mu);
    return held;
  }
  std::vector<std::string> Calls() {
    std::lock_guard lock(mu);
    return calls;
  }
};

TEST_F(TcpProxyTest, EveryCommandIsAskedAboutAndForwardedWhenTheHookSaysSo) {
  Asked asked;
  proxy_->SetCommandHook(asked.Hook());
  int fd = Connect(proxy_->port());
  std::string all = WireStartup() + WireQuery("BEGIN") + WireQuery("INSERT INTO t VALUES (1)");
  EXPECT_EQ(RoundTrip(fd, all), all);
  EXPECT_EQ(RoundTrip(fd, WireQuery("COMMIT")), WireQuery("COMMIT"));
  EXPECT_EQ(asked.Calls(), (std::vector<std::string>{"BEGIN", "INSERT", "COMMIT"}));
  proxy_->SetCommandHook(nullptr);
  EXPECT_EQ(RoundTrip(fd, WireQuery("SELECT 1")), WireQuery("SELECT 1"));
  EXPECT_EQ(asked.Calls().size(), 3u);
  ::close(fd);
}

// Killed before a command: what came before it in the same write reaches the server, the
// command and what follows do not, and the connection is cut.
TEST_F(TcpProxyTest, AKillBeforeACommandForwardsWhatCameBeforeItAndCuts) {
  Asked asked;
  asked.kill_before = "UPDATE";
  proxy_->SetCommandHook(asked.Hook());
  int fd = Connect(proxy_->port());
  const std::string before = WireStartup() + WireQuery("INSERT INTO t VALUES (1)");
  bool cut = false;
  std::string echoed =
      RoundTrip(fd, before + WireQuery("UPDATE t SET a = 2") + WireQuery("SELECT 1"), &cut);
  EXPECT_TRUE(cut);
  EXPECT_LE(echoed.size(), before.size());
  std::this_thread::sleep_for(milliseconds(50));
  EXPECT_EQ(echo_.received(), before);
  EXPECT_EQ(asked.Calls(), (std::vector<std::string>{"INSERT", "UPDATE"}));
  ::close(fd);
}

// Asked again after: the command reaches the server, its answer is the cue, and once the hook
// killed the job the answer is dropped and the connection cut; what the client sent after the
// command never goes.
TEST_F(TcpProxyTest, AKillAfterACommandWaitsForItsAnswerAndDropsIt) {
  Asked asked;
  asked.ask_after = "INSERT";
  proxy_->SetCommandHook(asked.Hook());
  int fd = Connect(proxy_->port());
  EXPECT_EQ(RoundTrip(fd, WireStartup()), WireStartup());
  const std::string insert = WireQuery("INSERT INTO t VALUES (1)");
  bool cut = false;
  EXPECT_EQ(RoundTrip(fd, insert + WireQuery("UPDATE t SET a = 2"), &cut), "");
  EXPECT_TRUE(cut);
  EXPECT_EQ(echo_.received(), WireStartup() + insert);
  EXPECT_EQ(asked.Calls(), (std::vector<std::string>{"INSERT", "INSERT+"}));
  ::close(fd);
}

// Held: the command and what follows wait, other connections go on; released, it goes and the
// commands after it are asked about.
TEST_F(TcpProxyTest, AHeldCommandWaitsForItsReleaseWhileOtherConnectionsGoOn) {
  Asked asked;
  asked.hold = "UPDATE";
  proxy_->SetCommandHook(asked.Hook());
  int fd = Connect(proxy_->port());
  const std::string insert = WireStartup() + WireQuery("INSERT INTO t VALUES (1)");
  const std::string rest = WireQuery("UPDATE t SET a = 2") + WireQuery("SELECT 1");
  EXPECT_EQ(Send(fd, insert + rest, insert.size()), insert);  // up to the hold
  EXPECT_EQ(echo_.received(), insert);
  int other = Connect(proxy_->port());
  EXPECT_EQ(RoundTrip(other, WireStartup() + WireQuery("DELETE FROM t")),
            WireStartup() + WireQuery("DELETE FROM t"));
  ASSERT_NE(asked.Held(), 0u);
  proxy_->Release(asked.Held() + 1000, CommandStep::kForward);  // no such ticket: nothing
  proxy_->Release(asked.Held(), CommandStep::kForward);
  EXPECT_EQ(ReadUpTo(fd, rest.size()), rest);
  EXPECT_EQ(asked.Calls(), (std::vector<std::string>{"INSERT", "UPDATE", "DELETE", "SELECT"}));
  for (int f : {fd, other}) ::close(f);
}

TEST_F(TcpProxyTest, AHeldCommandReleasedKilledNeverReachesTheServer) {
  Asked asked;
  asked.hold = "UPDATE";
  proxy_->SetCommandHook(asked.Hook());
  int fd = Connect(proxy_->port());
  const std::string insert = WireStartup() + WireQuery("INSERT INTO t VALUES (1)");
  EXPECT_EQ(Send(fd, insert + WireQuery("UPDATE t SET a = 2"), insert.size()), insert);
  ASSERT_NE(asked.Held(), 0u);
  proxy_->Release(asked.Held(), CommandStep::kKilled);
  bool cut = false;
  ReadUpTo(fd, 1, &cut);
  EXPECT_TRUE(cut);
  EXPECT_EQ(echo_.received(), insert);
  ::close(fd);
}

// A command the server never answers (an AMQP basic.ack) is asked about again once it was
// written to the server.
TEST_F(TcpProxyTest, AnUnansweredCommandIsAskedAgainOnceWritten) {
  auto amqp = TcpProxy::Start("127.0.0.1", echo_.port(), WireProtocol::kAmqp);
  ASSERT_TRUE(amqp) << amqp.error().message;
  Asked asked;
  asked.ask_after = "basic.ack";
  amqp.value()->SetCommandHook(asked.Hook());
  auto frame = [](const std::string& payload) {
    return std::string("\x01\0\x01", 3) + WireInt32(uint32_t(payload.size())) + payload + '\xCE';
  };
  const std::string ack = std::string("AMQP\0\0\x09\x01", 8) +
                          frame(std::string("\0\x3c\0\x50", 4) + std::string(9, '\0'));
  int fd = Connect(amqp.value()->port());
  ASSERT_EQ(::send(fd, ack.data(), ack.size(), MSG_NOSIGNAL), ssize_t(ack.size()));
  auto until = Clock::now() + std::chrono::seconds(2);
  while (asked.Calls().size() < 2 && Clock::now() < until)
    std::this_thread::sleep_for(milliseconds(5));
  EXPECT_EQ(asked.Calls(), (std::vector<std::string>{"basic.ack", "basic.ack+"}));
  bool cut = false;
  ReadUpTo(fd, 1, &cut);
  EXPECT_TRUE(cut);
  // The server reads on a thread of its own: what the proxy wrote before the cut arrives there.
  until = Clock::now() + std::chrono::seconds(2);
  while (echo_.received() != ack && Clock::now() < until)
    std::this_thread::sleep_for(milliseconds(5));
  EXPECT_EQ(echo_.received(), ack);
  ::close(fd);
}

}  // namespace
}  // namespace killpoint
