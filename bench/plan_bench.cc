// Plan generation per trial.
#include <benchmark/benchmark.h>

#include "plan/planner.h"

static killpoint::Scenario PublishLike() {
  killpoint::Scenario s;
  s.name = "publish/intent-done-query";
  s.dates = {"2026-11-01", "2026-11-02", "2026-11-03"};
  s.failpoints = {"before_write", "mid_write",    "before_fsync",   "before_rename",
                  "after_rename", "after_intent", "before_publish", "after_publish"};
  s.max_occurrence = 2;
  s.duplicate_trigger_probability = 0.1;
  s.downstream.faults = {killpoint::kCommitNoAnswer, killpoint::kFailBeforeCommit};
  s.downstream.fault_probability = 0.25;
  return s;
}

static void BM_MakePlan(benchmark::State& state) {
  killpoint::Scenario s = PublishLike();
  int trial = 0;
  for (auto _ : state) benchmark::DoNotOptimize(killpoint::MakePlan(s, 1, trial++));
}
BENCHMARK(BM_MakePlan);
