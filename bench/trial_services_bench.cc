// What a trial costs the harness besides its job's attempts, part by part (issue 8): each
// trial starts its own downstream service and control channel, makes and removes a sandbox,
// and after each attempt sweeps /proc for processes carrying the attempt's tag. Read beside
// scripts/bench-trials.sh's whole-run ratio (docs/performance.md, "Where a trial's time goes").
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>

#include "channel/control_channel.h"
#include "downstream/downstream.h"
#include "history/history.h"
#include "proc/process_tag.h"
#include "run/sandbox.h"

namespace {

using namespace killpoint;

void BM_DownstreamStartStop(benchmark::State& state) {
  History history;
  for (auto _ : state) {
    auto downstream = Downstream::Start(true, &history);
    if (!downstream) state.SkipWithError("downstream did not start");
    benchmark::DoNotOptimize(downstream);
  }
}
BENCHMARK(BM_DownstreamStartStop)->UseRealTime();

void BM_ControlChannelStartStop(benchmark::State& state) {
  for (auto _ : state) {
    auto channel = ControlChannel::Start([](const FailpointHit&) { return HitAnswer::Continue(); });
    if (!channel) state.SkipWithError("control channel did not start");
    benchmark::DoNotOptimize(channel);
  }
}
BENCHMARK(BM_ControlChannelStartStop)->UseRealTime();

void BM_SandboxCreateRemove(benchmark::State& state) {
  auto root =
      std::filesystem::temp_directory_path() / ("kp-sandbox-bench-" + std::to_string(::getpid()));
  std::filesystem::create_directories(root);
  for (auto _ : state) {
    auto box = Sandbox::Create(root, "t");
    if (!box) state.SkipWithError("sandbox not made");
    benchmark::DoNotOptimize(box);
  }
  std::filesystem::remove_all(root);
}
BENCHMARK(BM_SandboxCreateRemove)->UseRealTime();

// The sweep after an attempt whose processes are all gone: what every attempt pays.
void BM_TagSweepNothingLeft(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(KillTagged(NewProcessTag(), ::getpid()));
}
BENCHMARK(BM_TagSweepNothingLeft)->UseRealTime();

}  // namespace
