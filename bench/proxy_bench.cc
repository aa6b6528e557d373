// The fault proxy's cost (issue 20, docs/performance.md, "Services"): one round trip of a small
// message (a 64-byte simple query, as a job's statement is) over loopback to an echo server,
// straight and through the proxy (unarmed, reading the PostgreSQL framing as it does for a
// postgres service). The difference is what the proxy adds to each of a job's round trips.
// BM_LoopbackRoundTripThroughProxyAs/FRAMING: the same through a proxy reading each framing
// (none, mysql: a 64-byte COM_QUERY packet after a handshake response; redis: a 64-byte
// SET ... NX array), so that a parser's cost shows against none; BM_FramingFeed/FRAMING, the
// parser alone.
#include <arpa/inet.h>
#include <benchmark/benchmark.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <thread>

#include "service/tcp_proxy.h"

namespace {

using namespace killpoint;

int Listen(int* port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  ::listen(fd, 4);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  *port = ntohs(a.sin_port);
  return fd;
}

int Connect(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(uint16_t(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return -1;
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

// Echoes one connection until it closes.
class Echo {
 public:
  Echo() : listener_(Listen(&port_)) {
    thread_ = std::thread([this] {
      int fd = ::accept(listener_, nullptr, nullptr);
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      char buf[4096];
      for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) ::send(fd, buf, size_t(n), 0);
      ::close(fd);
    });
  }
  ~Echo() {
    thread_.join();
    ::close(listener_);
  }
  int port() const { return port_; }

 private:
  int port_ = 0;
  int listener_;
  std::thread thread_;
};

std::string Int32(uint32_t v) { return {char(v >> 24), char(v >> 16), char(v >> 8), char(v)}; }

// CPU time of the whole process (client, proxy and echo threads), in µs.
double ProcessCpuUs() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e6 +
         double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

// Round trips on `fd`. The counter process_cpu_us is the CPU of every thread per round trip:
// through the proxy minus straight is its CPU cost, which a loaded machine's scheduling delays
// (the real time's difference) do not blur.
// What a client of `framing` sends first (its handshake), then at each round trip (64 bytes).
struct Messages {
  std::string first, each;
};
Messages MessagesOf(WireProtocol framing) {
  if (framing == WireProtocol::kMysql) {
    std::string flags("\x05\xa2\x0e\x00", 4), sql = "\x03" + std::string(59, 'x');
    return {std::string("\x20\0\0\x01", 4) + flags + std::string(28, '\0'),
            std::string{char(sql.size()), 0, 0, 0} + sql};
  }
  if (framing == WireProtocol::kRedis) {  // SET k <value> NX: 64 bytes
    std::string value(29, 'x');
    return {"", "*4\r\n$3\r\nSET\r\n$1\r\nk\r\n$29\r\n" + value + "\r\n$2\r\nNX\r\n"};
  }
  // The startup's untyped header, then a 64-byte 'Q' message.
  std::string sql(58, 'x');
  return {Int32(8) + Int32(196608), 'Q' + Int32(uint32_t(sql.size() + 5)) + sql + '\0'};
}

void RoundTrips(benchmark::State& state, int fd, WireProtocol framing = WireProtocol::kPostgres) {
  const Messages m = MessagesOf(framing);
  const std::string& first = m.first;
  const std::string& q = m.each;
  char buf[4096];
  ::send(fd, first.data(), first.size(), 0);
  for (size_t got = 0; got < first.size();) got += size_t(::recv(fd, buf, sizeof buf, 0));
  const double cpu_start = ProcessCpuUs();
  for (auto _ : state) {
    ::send(fd, q.data(), q.size(), 0);
    for (size_t got = 0; got < q.size();) {
      ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) return state.SkipWithError("the connection closed");
      got += size_t(n);
    }
  }
  state.counters["process_cpu_us"] =
      (ProcessCpuUs() - cpu_start) / double(std::max<int64_t>(state.iterations(), 1));
  ::close(fd);
}

void BM_LoopbackRoundTripDirect(benchmark::State& state) {
  Echo echo;
  RoundTrips(state, Connect(echo.port()));
}
BENCHMARK(BM_LoopbackRoundTripDirect)->UseRealTime()->Unit(benchmark::kMicrosecond);

void BM_LoopbackRoundTripThroughProxy(benchmark::State& state) {
  Echo echo;
  auto proxy = TcpProxy::Start("127.0.0.1", echo.port(), WireProtocol::kPostgres);
  if (!proxy) return state.SkipWithError(proxy.error().message.c_str());
  RoundTrips(state, Connect(proxy.value()->port()));
}
BENCHMARK(BM_LoopbackRoundTripThroughProxy)->UseRealTime()->Unit(benchmark::kMicrosecond);

void BM_LoopbackRoundTripThroughProxyAs(benchmark::State& state, WireProtocol framing) {
  Echo echo;
  auto proxy = TcpProxy::Start("127.0.0.1", echo.port(), framing);
  if (!proxy) return state.SkipWithError(proxy.error().message.c_str());
  RoundTrips(state, Connect(proxy.value()->port()), framing);
}
// A parser's own cost: one 64-byte message fed per iteration, after the handshake (no socket,
// no thread): what each framing adds to the proxy's work on a round trip.
void BM_FramingFeed(benchmark::State& state, WireProtocol framing) {
  const Messages m = MessagesOf(framing);
  auto parser = MakeClientFraming(framing);
  parser->Feed(m.first);
  size_t found = 0;
  for (auto _ : state) found += parser->Feed(m.each).size();
  benchmark::DoNotOptimize(found);
  if (parser->broken()) state.SkipWithError("the parser broke");
}
BENCHMARK_CAPTURE(BM_FramingFeed, postgres, WireProtocol::kPostgres);
BENCHMARK_CAPTURE(BM_FramingFeed, mysql, WireProtocol::kMysql);
BENCHMARK_CAPTURE(BM_FramingFeed, redis, WireProtocol::kRedis);

BENCHMARK_CAPTURE(BM_LoopbackRoundTripThroughProxyAs, mysql, WireProtocol::kMysql)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_LoopbackRoundTripThroughProxyAs, redis, WireProtocol::kRedis)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
