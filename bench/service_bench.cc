// The costs of a scenario's postgres service (issue 20, docs/performance.md, "Services"): the
// run's one initdb (the template every worker copies), a worker's server start from that
// template (copy, start, first connection), a trial's reset (DROP DATABASE WITH (FORCE) and
// CREATE DATABASE from template0), and the stop. The same for a redis service: start (to the
// first PONG) and stop, and the reset, FLUSHALL of a server holding a trial's few keys. Wall
// time: the work is the server's.
#include <benchmark/benchmark.h>
#include <signal.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "service/redis_client.h"
#include "service/service.h"

namespace {

using namespace killpoint;
namespace fs = std::filesystem;

// A folder in RAM, as a run's sandbox root is; removed at the end.
class Root {
 public:
  Root() {
    std::string templ = "/dev/shm/kp-service-bench-XXXXXX";
    path_ = ::mkdtemp(templ.data()) ? fs::path(templ) : fs::temp_directory_path();
  }
  ~Root() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// initdb included: what the first postgres service of a run pays.
void BM_PostgresFirstStartStop(benchmark::State& state) {
  for (auto _ : state) {
    Root root;
    auto s = StartService("db", "postgres", root.path(), {});
    if (!s) state.SkipWithError(s.error().message.c_str());
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_PostgresFirstStartStop)->UseRealTime()->Iterations(3)->Unit(benchmark::kMillisecond);

// Every other one: the run's template copied.
void BM_PostgresStartStop(benchmark::State& state) {
  Root root;
  auto first = StartService("db", "postgres", root.path(), {});  // the run's initdb
  if (!first) state.SkipWithError(first.error().message.c_str());
  for (auto _ : state) {
    auto s = StartService("db", "postgres", root.path(), {});
    if (!s) state.SkipWithError(s.error().message.c_str());
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_PostgresStartStop)->UseRealTime()->Iterations(10)->Unit(benchmark::kMillisecond);

void BM_PostgresReset(benchmark::State& state) {
  Root root;
  auto s = StartService("db", "postgres", root.path(), {});
  if (!s) {
    state.SkipWithError(s.error().message.c_str());
    return;
  }
  for (auto _ : state) {
    auto address = s.value()->Reset();
    if (!address) state.SkipWithError(address.error().message.c_str());
  }
}
BENCHMARK(BM_PostgresReset)->UseRealTime()->Iterations(50)->Unit(benchmark::kMillisecond);

void BM_RedisStartStop(benchmark::State& state) {
  Root root;
  for (auto _ : state) {
    auto s = StartService("cache", "redis", root.path(), {});
    if (!s) state.SkipWithError(s.error().message.c_str());
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_RedisStartStop)->UseRealTime()->Iterations(10)->Unit(benchmark::kMillisecond);

// A trial's state: a lock, a marker and a counter per date, for 30 dates, written before each
// reset (not timed).
void BM_RedisReset(benchmark::State& state) {
  Root root;
  auto s = StartService("cache", "redis", root.path(), {});
  if (!s) {
    state.SkipWithError(s.error().message.c_str());
    return;
  }
  auto address = s.value()->Reset();
  auto c =
      address ? RedisConnection::Open(address.value()) : Result<RedisConnection>(address.error());
  if (!c) {
    state.SkipWithError(c.error().message.c_str());
    return;
  }
  for (auto _ : state) {
    state.PauseTiming();
    for (int d = 0; d < 30; ++d) {
      std::string day = std::to_string(d);
      (void)c.value().Command({"SET", "lock:" + day, "token", "PX", "60000"});
      (void)c.value().Command({"SET", "done:" + day, "token"});
      (void)c.value().Command({"INCR", "runs:" + day});
    }
    state.ResumeTiming();
    auto again = s.value()->Reset();
    if (!again) state.SkipWithError(again.error().message.c_str());
  }
}
BENCHMARK(BM_RedisReset)->UseRealTime()->Iterations(200)->Unit(benchmark::kMicrosecond);

}  // namespace
