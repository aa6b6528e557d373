// The cost of a failpoint in a job that runs without the harness (KILLPOINT_CTL unset):
// what production pays for being testable.
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <killpoint/failpoint.h>

static void BM_FailpointUnarmed(benchmark::State& state) {
  ::unsetenv("KILLPOINT_CTL");
  for (auto _ : state) {
    killpoint::failpoint("before_commit");
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_FailpointUnarmed);

static void BM_EmptyLoop(benchmark::State& state) {
  for (auto _ : state) benchmark::ClobberMemory();
}
BENCHMARK(BM_EmptyLoop);
