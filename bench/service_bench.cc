// The costs of a scenario's services, per kind (issue 20, docs/performance.md, "Services"): the
// run's one set-up (initdb, mariadb-install-db: the template every worker copies), a worker's
// server start from that template (copy, start, first connection) and its stop, and a trial's
// reset (a fresh database; for redis, FLUSHALL of a server holding a trial's few keys). Wall
// time: the work is the server's.
#include <benchmark/benchmark.h>
#include <signal.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>

#include "service/redis/redis_client.h"
#include "service/service.h"
#include "service/service_kinds.h"

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

// A service of `kind`, or the benchmark skipped with the reason.
std::unique_ptr<RunningService> Start(benchmark::State& state, const char* kind, const Root& root) {
  auto s = StartService("db", kind, root.path(), {});
  if (!s) {
    state.SkipWithError(s.error().message.c_str());
    return nullptr;
  }
  return std::move(s.value());
}

// The set-up tool included: what the first service of its kind in a run pays.
void BM_FirstStartStop(benchmark::State& state, const char* kind) {
  for (auto _ : state) {
    Root root;
    benchmark::DoNotOptimize(Start(state, kind, root));
  }
}

// Every other one: the run's template copied.
void BM_StartStop(benchmark::State& state, const char* kind) {
  Root root;
  auto first = Start(state, kind, root);  // the run's set-up
  for (auto _ : state) benchmark::DoNotOptimize(Start(state, kind, root));
}

void BM_Reset(benchmark::State& state, const char* kind) {
  Root root;
  auto s = Start(state, kind, root);
  for (auto _ : state) {
    if (!s) break;
    auto address = s->Reset();
    if (!address) state.SkipWithError(address.error().message.c_str());
  }
}

#define KP_SERVICE_BENCHMARKS(kind)                 \
  BENCHMARK_CAPTURE(BM_FirstStartStop, kind, #kind) \
      ->UseRealTime()                               \
      ->Iterations(3)                               \
      ->Unit(benchmark::kMillisecond);              \
  BENCHMARK_CAPTURE(BM_StartStop, kind, #kind)      \
      ->UseRealTime()                               \
      ->Iterations(10)                              \
      ->Unit(benchmark::kMillisecond);              \
  BENCHMARK_CAPTURE(BM_Reset, kind, #kind)          \
      ->UseRealTime()                               \
      ->Iterations(50)                              \
      ->Unit(benchmark::kMillisecond)

KP_SERVICE_BENCHMARKS(postgres);
KP_SERVICE_BENCHMARKS(mariadb);
KP_SERVICE_BENCHMARKS(rabbitmq);

// Redis has no set-up tool: its first start is any start.
BENCHMARK_CAPTURE(BM_StartStop, redis, "redis")
    ->UseRealTime()
    ->Iterations(10)
    ->Unit(benchmark::kMillisecond);

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
