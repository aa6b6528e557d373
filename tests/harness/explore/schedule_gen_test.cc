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
    s.models = *rc::gen::element(std::vector<std::string>{"process"}, std::vector<std::string>{"process", "power"});
    if (*rc::gen::arbitrary<bool>()) s.downstream.faults = {kCommitNoAnswer, kFailBeforeCommit};
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
  std::set<std::string> models;
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
        RC_ASSERT(std::count(s.downstream.faults.begin(), s.downstream.faults.end(), f.downstream_fault) == 1);
      }
    }
  }
  RC_ASSERT(models.size() <= 1u);  // one persistence model a schedule
  if (!models.empty()) RC_ASSERT(std::count(s.models.begin(), s.models.end(), *models.begin()) == 1);
}

RC_GTEST_PROP(ScheduleGen, ScenarioWithoutFaultsGivesFiringsOnly, ()) {
  Scenario s = *GenScenario();
  s.failpoints.clear();
  s.downstream.faults.clear();
  Plan p = *GenSchedule(s, 1);
  for (const PlannedRun& run : p.runs) RC_ASSERT(run.attempts.empty());
  RC_ASSERT(FaultedAttempts(p) == 0);
}

}  // namespace
}  // namespace killpoint
