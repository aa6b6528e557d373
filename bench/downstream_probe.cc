// kp-downstream-probe: what a hostile or merely busy client costs the downstream (issue 34),
// measured on a real Downstream over loopback sockets. It prints one line a probe:
//   idle N        the wall time of one GET /deliveries while N idle keep-alive connections are
//                 open (N = 4, 100, 1000; given up after 40 s)
//   slowloris     whether a client that trickles header lines (one every 500 ms, never the
//                 blank line) is cut by the server, and after how long (given up after 40 s)
//   pipelined     three POST /publish in one write: how many answers came back within 3 s,
//                 and how many publish events the history recorded
// docs/performance.md, "Downstream connections", keeps the figures.
//
//   kp-downstream-probe
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "downstream/downstream.h"
#include "history/event.h"
#include "history/event_registry.h"
#include "history/history.h"
#include "tests/harness/downstream/raw_client.h"

namespace {

using Clock = std::chrono::steady_clock;
using killpoint::Downstream;
using killpoint::History;
using killpoint::testing::ConnectLoopback;
using killpoint::testing::SendAll;

int PortOf(const Downstream& d) {
  std::string url = d.BaseUrl();
  return std::stoi(url.substr(url.rfind(':') + 1));
}

// Reads until `answers` status lines came back, the peer closed, or `limit` passed.
std::string ReadAnswers(int fd, int answers, std::chrono::milliseconds limit) {
  std::string got;
  auto deadline = Clock::now() + limit;
  char buf[4096];
  while (Clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 20) <= 0) continue;
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
    int seen = 0;
    for (size_t at = 0; (at = got.find("HTTP/1.1 ", at)) != std::string::npos; ++at) ++seen;
    if (seen >= answers && got.rfind("}") == got.size() - 1) break;
  }
  return got;
}

void RaiseFdLimit() {
  rlimit r{};
  if (::getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
    r.rlim_cur = r.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &r);
  }
}

void Idle(int n) {
  History history;
  auto d = Downstream::Start(false, &history);
  if (!d) return;
  int port = PortOf(*d.value());
  std::vector<int> idle;
  for (int i = 0; i < n; ++i) {
    int fd = ConnectLoopback(port);
    if (fd < 0) break;
    idle.push_back(fd);
  }
  auto started = Clock::now();
  int fd = ConnectLoopback(port);
  SendAll(fd, "GET /deliveries?key=k HTTP/1.1\r\nHost: x\r\n\r\n");
  std::string answer = ReadAnswers(fd, 1, std::chrono::seconds(40));
  double ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  std::printf("idle %d: %zu open, one more GET /deliveries %s in %.1f ms\n", n, idle.size(),
              answer.rfind("HTTP/1.1 200", 0) == 0 ? "answered" : "NOT answered", ms);
  ::close(fd);
  for (int i : idle) ::close(i);
}

void Slowloris() {
  History history;
  auto d = Downstream::Start(false, &history);
  if (!d) return;
  int fd = ConnectLoopback(PortOf(*d.value()));
  auto started = Clock::now();
  SendAll(fd, "GET /deliveries?key=k HTTP/1.1\r\nHost: x\r\n");
  bool cut = false;
  for (int i = 0; Clock::now() - started < std::chrono::seconds(40) && !cut; ++i) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 500) > 0) {
      char c;
      cut = ::recv(fd, &c, 1, 0) <= 0;
      if (!cut) continue;
    }
    if (::send(fd, "X-Slow: 1\r\n", 11, MSG_NOSIGNAL) < 0) cut = true;
  }
  double s = std::chrono::duration<double>(Clock::now() - started).count();
  std::printf("slowloris: %s after %.1f s\n", cut ? "cut" : "NOT cut", s);
  ::close(fd);
}

void Pipelined() {
  History history;
  auto d = Downstream::Start(false, &history);
  if (!d) return;
  int fd = ConnectLoopback(PortOf(*d.value()));
  std::string three;
  for (const char* key : {"p1", "p2", "p3"}) {
    std::string body = std::string(R"({"key":")") + key + R"(","biz_date":"2026-11-01"})";
    three +=
        "POST /publish HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        "Content-Length: " +
        std::to_string(body.size()) + "\r\n\r\n" + body;
  }
  SendAll(fd, three);
  std::string got = ReadAnswers(fd, 3, std::chrono::seconds(3));
  int answered = 0;
  for (size_t at = 0; (at = got.find("HTTP/1.1 ", at)) != std::string::npos; ++at) ++answered;
  ::close(fd);
  d.value().reset();
  size_t recorded = killpoint::OfType(history.Events(), killpoint::event::Publish::kType).size();
  std::printf("pipelined: 3 sent, %d answered, %zu recorded\n", answered, recorded);
}

}  // namespace

int main() {
  RaiseFdLimit();
  for (int n : {4, 100, 1000}) Idle(n);
  Slowloris();
  Pipelined();
  return 0;
}
