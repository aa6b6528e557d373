// The cost of a failpoint: in a job that runs without the harness (KILLPOINT_CTL unset), what
// production pays for being testable; and under the harness, at a point it arms and lets go on
// (HIT and CONTINUE over the harness's own control channel, on loopback).
#include <benchmark/benchmark.h>
#include <killpoint/failpoint.h>
#include <stdlib.h>

#include "channel/control_channel.h"

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

// One armed point, answered CONTINUE: the job's client (the same code killpoint::failpoint()
// runs once KILLPOINT_CTL is set, on one connection kept open) against killpoint's channel,
// whose thread parses the line, calls the handler and answers. Real time: the two threads
// hand the point back and forth, which is the cost.
static void BM_FailpointArmedContinue(benchmark::State& state) {
  auto channel = killpoint::ControlChannel::Start(
      [](const killpoint::FailpointHit&) { return killpoint::HitAnswer::Continue(); });
  if (!channel) {
    state.SkipWithError("control channel did not start");
    return;
  }
  killpoint::detail::FailpointClient client(channel.value()->Address());
  for (auto _ : state) client.Hit("before_commit");
}
BENCHMARK(BM_FailpointArmedContinue)->UseRealTime();
