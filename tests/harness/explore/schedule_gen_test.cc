// The schedule generator of `killpoint explore`: every schedule it draws is one the runner can
// carry out for the scenario, whatever the scenario's shape.
#include "explore/schedule_gen.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "plan/crash_point.h"

namespace killpoint {
namespace {

using enum PersistenceModel;

rc::Gen<Scenario> GenScenario() {
  return rc::gen::exec([] {
    Scenario s;
    s.name = "s";
    int dates = *rc::gen::inRange(1, 9);
    for (int d = 1; d <= dates; ++d) s.dates.push_back("2026-11-0" + std::to_string(d));
    int points = *rc::gen::inRange(0, 5);
    for (int p = 0; p < points; ++p) s.failpoints.push_back("point_" + std::to_string(p));
    if (*rc::gen::arbitrary<bool>()) s.failpoints.push_back("write:state.json");
    s.max_occurrence = *rc::gen::inRange(1, 4);
    s.retry.max_attempts = *rc::gen::inRange(1, 6);
    s.models = *rc::gen::element(std::vector<PersistenceModel>{kProcess},
                                 std::vector<PersistenceModel>{kProcess, kPower});
    if (*rc::gen::arbitrary<bool>()) s.downstream.faults = {kCommitNoAnswer, kFailBeforeCommit};
    // The switches (issue 17): each on or off, so both kinds of scenario are drawn.
    s.duplicate_trigger_probability = *rc::gen::element(0.0, 0.2);
    if (!s.downstream.faults.empty()) s.downstream.fault_probability = *rc::gen::element(0.0, 0.25);
    if (!s.failpoints.empty()) {
      s.faults.pause = {{s.failpoints.front()}, 10, *rc::gen::element(0.0, 0.5)};
      s.faults.overlap = {{s.failpoints.back()}, *rc::gen::element(0.0, 0.5), 100};
    }
    s.faults.downstream_burst = {*rc::gen::inRange(0, 3), *rc::gen::element(0.0, 0.5)};
    return s;
  });
}

RC_GTEST_PROP(ScheduleGen, DrawsOnlySchedulesTheScenarioAllows, ()) {
  Scenario s = *GenScenario();
  Plan p = *GenSchedule(s, 7);
  RC_ASSERT(p.scenario == s.name);
  RC_ASSERT(p.seed == 7u);
  RC_ASSERT(!p.runs.empty());
  std::map<std::string, int> triggers;
  std::set<PersistenceModel> models;
  for (const PlannedRun& run : p.runs) {
    auto at = std::find(s.dates.begin(), s.dates.end(), run.biz_date);
    RC_ASSERT(at != s.dates.end());
    RC_ASSERT(at - s.dates.begin() < kMaxExploreDates);
    RC_ASSERT(run.trigger == ++triggers[run.biz_date]);  // firings of a date count 1, 2, ...
    RC_ASSERT(static_cast<int>(run.attempts.size()) <= s.retry.max_attempts);
    if (!run.attempts.empty()) RC_ASSERT(!run.attempts.back().None());  // no trailing no-op
    for (const AttemptFault& f : run.attempts) {
      models.insert(f.model);
      if (!f.kill_point.empty()) {
        RC_ASSERT(std::count(s.failpoints.begin(), s.failpoints.end(), f.kill_point) == 1);
        RC_ASSERT(f.occurrence >= 1 && f.occurrence <= s.max_occurrence);
        auto moments = KillMoments(f.kill_point);
        RC_ASSERT(std::count(moments.begin(), moments.end(), f.when) == 1);
      }
      if (!f.downstream_fault.empty()) {
        RC_ASSERT(std::count(s.downstream.faults.begin(), s.downstream.faults.end(),
                             f.downstream_fault) == 1);
      }
    }
  }
  RC_ASSERT(models.size() <= 1u);  // one persistence model a schedule
  if (!models.empty())
    RC_ASSERT(std::count(s.models.begin(), s.models.end(), *models.begin()) == 1);
}

// Issue 17: explore's first finding must not be a fault the scenario never enabled. Without
// --all-faults a schedule draws a kind of fault only if the scenario's probability for it is
// above 0, as `run` does; with it, every kind the scenario describes may come.
RC_GTEST_PROP(ScheduleGen, HonoursTheScenariosFaultSwitchesUnlessWidened, ()) {
  Scenario s = *GenScenario();
  const bool widened = *rc::gen::arbitrary<bool>();
  Plan p = *GenSchedule(s, 3, widened);
  if (widened) return;
  if (s.duplicate_trigger_probability == 0) {  // each date of the calendar once, in order
    RC_ASSERT(p.runs.size() <= s.dates.size());
    for (size_t i = 0; i < p.runs.size(); ++i) {
      RC_ASSERT(p.runs[i].biz_date == s.dates[i]);
      RC_ASSERT(p.runs[i].trigger == 1);
    }
  }
  for (const PlannedRun& run : p.runs) {
    for (const AttemptFault& f : run.attempts) {
      if (s.downstream.fault_probability == 0) RC_ASSERT(f.downstream_fault.empty());
      if (s.faults.pause.probability == 0) RC_ASSERT(f.pause.point.empty());
      if (s.faults.overlap.probability == 0) RC_ASSERT(f.overlap.point.empty());
      if (s.faults.downstream_burst.probability == 0) RC_ASSERT(f.downstream_burst == 0);
    }
  }
}

// The same scenario with every switch off, searched long enough: the default draws none of
// those faults, --all-faults draws each kind.
TEST(ScheduleGen, AllFaultsWidensToEveryKind) {
  Scenario s;
  s.name = "s";
  s.dates = {"2026-11-01", "2026-11-02", "2026-11-03"};
  s.failpoints = {"a", "b"};
  s.downstream.faults = {kFailBeforeCommit};
  s.faults.pause = {{"a"}, 10, 0.0};
  s.faults.overlap = {{"b"}, 0.0, 100};
  s.faults.downstream_burst = {2, 0.0};
  for (bool widened : {false, true}) {
    std::set<std::string> seen;
    for (uint64_t i = 0; i < 300; ++i) {
      Plan p = GenSchedule(s, 1, widened)(rc::Random(i)).value();
      std::map<std::string, int> fired;
      std::string last;
      for (const PlannedRun& run : p.runs) {
        if (++fired[run.biz_date] > 1) seen.insert("duplicate");
        if (!last.empty() && run.biz_date < last) seen.insert("backfill");
        last = std::max(last, run.biz_date);
        for (const AttemptFault& f : run.attempts) {
          if (!f.downstream_fault.empty()) seen.insert("downstream");
          if (!f.pause.point.empty()) seen.insert("pause");
          if (!f.overlap.point.empty()) seen.insert("overlap");
          if (f.downstream_burst > 0) seen.insert("burst");
        }
      }
    }
    if (widened) {
      EXPECT_EQ(seen, (std::set<std::string>{"backfill", "burst", "downstream", "duplicate",
                                             "overlap", "pause"}));
    } else {
      EXPECT_TRUE(seen.empty()) << *seen.begin();
    }
  }
}

RC_GTEST_PROP(ScheduleGen, ScenarioWithoutFaultsGivesFiringsOnly, ()) {
  Scenario s = *GenScenario();
  s.failpoints.clear();
  s.downstream.faults.clear();
  s.faults = {};
  Plan p = *GenSchedule(s, 1);
  for (const PlannedRun& run : p.runs) RC_ASSERT(run.attempts.empty());
  RC_ASSERT(FaultedAttempts(p) == 0);
}

}  // namespace
}  // namespace killpoint
