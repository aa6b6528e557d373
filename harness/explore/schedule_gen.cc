#include "explore/schedule_gen.h"

#include <algorithm>
#include <map>

#include "plan/crash_point.h"

namespace killpoint {
namespace {

// A coin that lands true once in `in` throws and shrinks to false (inRange shrinks towards its
// low end; weightedElement does not shrink at all).
bool Coin(int in) { return *rc::gen::inRange(0, in) == in - 1; }

// What one attempt suffers; both parts shrink to "nothing".
AttemptFault GenFault(const Scenario& s, const std::string& model) {
  AttemptFault f;
  f.model = model;
  if (!s.failpoints.empty() && Coin(2)) {
    size_t point = *rc::gen::inRange<size_t>(0, s.failpoints.size());
    f.kill_point = s.failpoints[point];
    f.occurrence = *rc::gen::inRange(1, s.max_occurrence + 1);
    std::vector<const char*> moments = KillMoments(f.kill_point);
    f.when = moments[*rc::gen::inRange<size_t>(0, moments.size())];
  }
  if (!s.downstream.faults.empty() && Coin(4)) {
    f.downstream_fault = s.downstream.faults[*rc::gen::inRange<size_t>(0, s.downstream.faults.size())];
  }
  // Issue 6 (docs/faults.md): drawn only when the scenario has them, so that the schedules of
  // other scenarios stay as they were; each shrinks to none, then to the first point.
  const FaultSpec& x = s.faults;
  if (!x.pause.points.empty() && Coin(4)) {
    f.pause = {x.pause.points[*rc::gen::inRange<size_t>(0, x.pause.points.size())], x.pause.duration_ms};
  }
  if (!x.overlap.points.empty() && Coin(4)) {
    f.overlap = {x.overlap.points[*rc::gen::inRange<size_t>(0, x.overlap.points.size())], x.overlap.hold_ms};
  }
  if (x.downstream_burst.length > 0 && Coin(4)) f.downstream_burst = x.downstream_burst.length;
  return f;
}

}  // namespace

rc::Gen<Plan> GenSchedule(const Scenario& s, uint64_t seed) {
  return rc::gen::exec([&s, seed] {
    Plan plan{s.name, seed, 0, {}};
    int calendar = *rc::gen::inRange(1, static_cast<int>(std::min<size_t>(s.dates.size(), kMaxExploreDates)) + 1);
    std::string model = s.models[*rc::gen::inRange<size_t>(0, s.models.size())];
    // Firings: at least one; each names a date of the calendar.
    int firings = *rc::gen::inRange(1, 2 * calendar + 2);
    std::map<std::string, int> triggers;
    for (int i = 0; i < firings; ++i) {
      PlannedRun run;
      run.biz_date = s.dates[*rc::gen::inRange(0, calendar)];
      run.trigger = ++triggers[run.biz_date];
      int faulted = *rc::gen::inRange(0, s.retry.max_attempts + 1);
      for (int a = 0; a < faulted; ++a) run.attempts.push_back(GenFault(s, model));
      // Trailing attempts without a fault say nothing: leave them out.
      while (!run.attempts.empty() && run.attempts.back().None()) run.attempts.pop_back();
      plan.runs.push_back(std::move(run));
    }
    return plan;
  });
}

int FaultedAttempts(const Plan& plan) {
  int n = 0;
  for (const auto& run : plan.runs) n += static_cast<int>(run.attempts.size());
  return n;
}

}  // namespace killpoint
