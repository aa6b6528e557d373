// What a busy or hostile client costs the downstream (issue 34), with raw loopback sockets:
// idle keep-alive connections by the thousand, a client that never finishes its headers or its
// body, more connections than allowed, and pipelined requests. Under cpp-httplib's
// thread-per-connection pool the first left a further request unanswered for over 30 s, the
// slow client was never cut, and only the first pipelined request was answered and recorded.
// bench/downstream_probe.cc measures the same (docs/performance.md, "Downstream connections").
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "downstream/downstream.h"
#include "history/event.h"
#include "history/event_registry.h"
#include "history/history.h"
#include "raw_client.h"

namespace killpoint {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using ProbeClock = std::chrono::steady_clock;

struct ProbedService {
  explicit ProbedService(DownstreamLimits limits = {}) {
    auto s = Downstream::Start(false, &history, false, limits);
    EXPECT_TRUE(s);
    downstream = std::move(s.value());
    std::string url = downstream->BaseUrl();
    port = std::stoi(url.substr(url.rfind(':') + 1));
  }
  std::vector<Event> Of(const char* type) { return OfType(history.Events(), type); }

  History history;
  std::unique_ptr<Downstream> downstream;
  int port = 0;
};

size_t CountAnswers(const std::string& text) {
  size_t count = 0;
  for (size_t at = 0; (at = text.find("HTTP/1.1 ", at)) != std::string::npos; ++at) ++count;
  return count;
}

// What came back until `answers` whole answers (JSON bodies) did, the server closed, or
// `limit` passed.
std::string ReceiveAnswers(int fd, size_t answers, milliseconds limit) {
  std::string got;
  auto deadline = ProbeClock::now() + limit;
  char buf[4096];
  while (ProbeClock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 20) <= 0) continue;
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
    if (CountAnswers(got) >= answers && !got.empty() && got.back() == '}') break;
  }
  return got;
}

// Whether the server closed `fd` within `limit`, sending `trickle` every 200 ms meanwhile.
bool ClosedByServer(int fd, const std::string& trickle, milliseconds limit) {
  auto deadline = ProbeClock::now() + limit;
  while (ProbeClock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 200) > 0) {
      char c;
      if (::recv(fd, &c, 1, 0) <= 0) return true;
    }
    if (!trickle.empty() && ::send(fd, trickle.data(), trickle.size(), MSG_NOSIGNAL) < 0)
      return true;
  }
  return false;
}

std::string PublishRequest(const std::string& key) {
  std::string body = json{{"key", key}, {"biz_date", "2026-11-01"}}.dump();
  return "POST /publish HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
         "Content-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

const std::string kQuery = "GET /deliveries?key=k HTTP/1.1\r\nHost: x\r\n\r\n";

// 1,000 connections need more descriptors than a default soft limit of 1,024 leaves a test.
void RaiseDescriptorLimit(rlim_t wanted) {
  rlimit r{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &r), 0);
  if (r.rlim_cur >= wanted) return;
  if (r.rlim_max != RLIM_INFINITY && r.rlim_max < wanted) GTEST_SKIP() << "fd hard limit too low";
  r.rlim_cur = wanted;
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &r), 0);
}

TEST(DownstreamConnections, AnswersBesideAThousandIdleKeepAliveConnections) {
  RaiseDescriptorLimit(2200);
  ProbedService s;
  std::vector<int> idle;
  for (int i = 0; i < 4; ++i) {  // keep-alive: answered once, then left open and silent
    idle.push_back(testing::ConnectLoopback(s.port));
    testing::SendAll(idle.back(), kQuery);
    ASSERT_EQ(CountAnswers(ReceiveAnswers(idle.back(), 1, milliseconds(10'000))), 1u);
  }
  while (idle.size() < 1000) {  // connected, nothing sent yet
    idle.push_back(testing::ConnectLoopback(s.port));
    ASSERT_GE(idle.back(), 0);
  }
  int fd = testing::ConnectLoopback(s.port);
  testing::SendAll(fd, kQuery);
  std::string answer = ReceiveAnswers(fd, 1, milliseconds(10'000));  // httplib: over 30 s
  EXPECT_EQ(answer.rfind("HTTP/1.1 200", 0), 0u) << answer;
  // The keep-alive ones are served still.
  testing::SendAll(idle.front(), kQuery);
  EXPECT_EQ(CountAnswers(ReceiveAnswers(idle.front(), 1, milliseconds(10'000))), 1u);
  ::close(fd);
  for (int i : idle) ::close(i);
  EXPECT_EQ(s.Of(event::Query::kType).size(), 6u);
}

TEST(DownstreamConnections, ClosesAClientThatNeverFinishesItsHeaders) {
  DownstreamLimits limits;
  limits.header_timeout = milliseconds(1000);
  ProbedService s(limits);
  int fd = testing::ConnectLoopback(s.port);
  auto started = ProbeClock::now();
  testing::SendAll(fd, "GET /deliveries?key=k HTTP/1.1\r\nHost: x\r\n");
  EXPECT_TRUE(ClosedByServer(fd, "X-Slow: 1\r\n", milliseconds(8000)));  // httplib: never
  EXPECT_GE(ProbeClock::now() - started, milliseconds(900));
  ::close(fd);
  EXPECT_TRUE(s.history.Events().empty());  // never a whole request: nothing recorded
  // An idle keep-alive connection is closed after the same time.
  fd = testing::ConnectLoopback(s.port);
  testing::SendAll(fd, kQuery);
  EXPECT_EQ(CountAnswers(ReceiveAnswers(fd, 1, milliseconds(5000))), 1u);
  EXPECT_TRUE(ClosedByServer(fd, "", milliseconds(8000)));
  ::close(fd);
}

TEST(DownstreamConnections, ClosesAClientThatNeverFinishesItsBody) {
  DownstreamLimits limits;
  limits.body_timeout = milliseconds(1000);
  ProbedService s(limits);
  int fd = testing::ConnectLoopback(s.port);
  std::string whole = PublishRequest("slow");
  testing::SendAll(fd, whole.substr(0, whole.size() - 5));  // the body's last 5 bytes never come
  EXPECT_TRUE(ClosedByServer(fd, "", milliseconds(8000)));  // httplib: not within 8 s
  ::close(fd);
  EXPECT_TRUE(s.Of(event::Publish::kType).empty());
}

TEST(DownstreamConnections, ClosesAConnectionBeyondTheMost) {
  DownstreamLimits limits;
  limits.max_connections = 2;
  ProbedService s(limits);
  int first = testing::ConnectLoopback(s.port), second = testing::ConnectLoopback(s.port);
  testing::SendAll(first, kQuery);  // both accepted: the first is answered
  ASSERT_EQ(CountAnswers(ReceiveAnswers(first, 1, milliseconds(5000))), 1u);
  int third = testing::ConnectLoopback(s.port);
  EXPECT_TRUE(ClosedByServer(third, "", milliseconds(5000)));
  ::close(third);
  ::close(second);
  ::close(first);
}

TEST(DownstreamConnections, AnswersAndRecordsPipelinedPublishesInOrder) {
  ProbedService s;
  int fd = testing::ConnectLoopback(s.port);
  testing::SendAll(
      fd, PublishRequest("p1") + PublishRequest("p2") + PublishRequest("p3"));  // one write
  std::string got = ReceiveAnswers(fd, 3, milliseconds(10'000));
  ::close(fd);
  ASSERT_EQ(CountAnswers(got), 3u) << got;  // httplib: 1
  std::vector<int> ids;
  for (size_t at = 0; (at = got.find("\r\n\r\n", at)) != std::string::npos; at += 4) {
    size_t end = got.find('}', at);
    ids.push_back(json::parse(got.substr(at + 4, end + 1 - (at + 4)))["delivery_id"]);
  }
  EXPECT_EQ(ids, (std::vector<int>{1, 2, 3}));
  auto publishes = s.Of(event::Publish::kType);
  ASSERT_EQ(publishes.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(publishes[i].data["key"], "p" + std::to_string(i + 1));
    EXPECT_EQ(publishes[i].data["delivery_id"], i + 1);
  }
}

// The query's key is decoded as cpp-httplib did: "%20" and "+" are spaces.
TEST(DownstreamConnections, DecodesTheQuerysKey) {
  ProbedService s;
  int fd = testing::ConnectLoopback(s.port);
  testing::SendAll(fd, PublishRequest("a b") +
                           "GET /deliveries?key=a%20b HTTP/1.1\r\nHost: x\r\n\r\n" +
                           "GET /deliveries?key=a+b&key=c HTTP/1.1\r\nHost: x\r\n\r\n");
  std::string got = ReceiveAnswers(fd, 3, milliseconds(10'000));
  ::close(fd);
  ASSERT_EQ(CountAnswers(got), 3u) << got;
  auto queries = s.Of(event::Query::kType);
  ASSERT_EQ(queries.size(), 2u);
  for (const Event& query : queries) {
    EXPECT_EQ(query.data["key"], "a b");
    EXPECT_EQ(query.data["count"], 1);
  }
}

}  // namespace
}  // namespace killpoint
