// Checkers per trial, over a history the size of a publish trial with retries.
#include <benchmark/benchmark.h>

#include <filesystem>

#include "history/event_registry.h"
#include "history/history.h"
#include "results/checkers.h"

namespace {

using namespace killpoint;

struct Fixture {
  Fixture() {
    s.name = "bench";
    s.must_hold = {"no_double_publish", "no_loss", "no_silent_loss", "converges", "state_readable"};
    p.runs = {{"2026-11-01", 1, {}}, {"2026-11-02", 1, {}}, {"2026-11-03", 1, {}}};
    History h;
    for (const auto& run : p.runs) {
      for (int attempt = 1; attempt <= 3; ++attempt) {
        h.SetContext({run.biz_date, 1, attempt});
        h.Add(event::Spawn::kType, {{"pid", 1}});
        for (int i = 0; i < 8; ++i) h.Add(event::Failpoint::kType, {{"point", "p"}, {"hit", 1}});
        h.Add(event::Publish::kType, {{"key", "publish-" + run.biz_date},
                                      {"biz_date", run.biz_date},
                                      {"committed", attempt == 1},
                                      {"delivery_id", 1}});
        h.Add(event::Exit::kType, {{"code", attempt == 3 ? 0 : 137}, {"stderr", ""}});
      }
    }
    events = h.Events();
    dir = std::filesystem::temp_directory_path() / "kp-check-bench";
    std::filesystem::create_directories(dir);
  }
  ~Fixture() { std::filesystem::remove_all(dir); }
  Scenario s;
  Plan p;
  std::vector<Event> events;
  std::filesystem::path dir;
};

void BM_CheckPublishTrial(benchmark::State& state) {
  Fixture f;
  for (auto _ : state) {
    CheckInput in{f.s, f.p, f.events, f.dir};
    benchmark::DoNotOptimize(CheckTrial(in, AllCheckers()));
  }
}
BENCHMARK(BM_CheckPublishTrial);

// Each built-in checker alone over the same history, BM_Checker/<name> (AllCheckers: with
// journal_complete). A checker whose input is not in a publish trial (a settlement table, a
// selftest file) finds it missing and returns early: its figure is that of a trial of another job.
void BM_Checker(benchmark::State& state, const Checker& check) {
  Fixture f;
  for (auto _ : state) {
    CheckInput in{f.s, f.p, f.events, f.dir};
    benchmark::DoNotOptimize(check(in));
  }
}

const int kRegistered = [] {
  for (const auto& [name, check] : AllCheckers()) {
    benchmark::RegisterBenchmark(("BM_Checker/" + name).c_str(), BM_Checker, check);
  }
  return 0;
}();

}  // namespace
