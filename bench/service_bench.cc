// The costs of a scenario's services, per kind (issue 20, docs/performance.md, "Services"): the
// run's one set-up (initdb, mariadb-install-db: the template every worker copies), a worker's
// server start from that template (copy, start, first connection) and its stop, and a trial's
// reset (a fresh database). Wall time: the work is the server's.
#include <benchmark/benchmark.h>
#include <signal.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>

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

}  // namespace
