#include "explore/schedule_gen.h"

#include <algorithm>
#include <map>

#include "plan/crash_point.h"
#include "plan/point_pattern.h"
#include "plan/seed.h"
#include "scenario/net_point.h"

namespace killpoint {
namespace {

// A coin that lands true once in `in` throws and shrinks to false (inRange shrinks towards its
// low end; weightedElement does not shrink at all).
bool Coin(int in) { return *rc::gen::inRange(0, in) == in - 1; }

// A network fault (docs/services.md); shrinks to the first point, its first action, hit 1.
NetFault GenNet(const NetSpec& n) {
  NetFault f;
  f.point = n.points[*rc::gen::inRange<size_t>(0, n.points.size())];
  std::vector<NetAction> fit = NetActionsFitting(f.point, n.actions);
  if (fit.empty()) return {};
  f.action = fit[*rc::gen::inRange<size_t>(0, fit.size())];
  f.hit = *rc::gen::inRange(1, n.max_hit + 1);
  if (TakesMs(f.action)) f.ms = n.ms;
  return f;
}

// A server fault (docs/services.md); shrinks to the first point, service and action.
ServerFault GenServer(const ServerFaultSpec& x) {
  ServerFault f;
  f.point = x.points[*rc::gen::inRange<size_t>(0, x.points.size())];
  f.service = x.services[*rc::gen::inRange<size_t>(0, x.services.size())];
  f.action = x.actions[*rc::gen::inRange<size_t>(0, x.actions.size())];
  if (f.action == ServerAction::kPause) f.duration_ms = x.duration_ms;
  return f;
}

// What one attempt suffers; both parts shrink to "nothing".
AttemptFault GenFault(const Scenario& s, const FaultSwitches& on, PersistenceModel model,
                      const std::vector<CrashPoint>& discovered) {
  AttemptFault f;
  f.model = model;
  if (!s.failpoints.empty() && Coin(2)) {
    size_t point = *rc::gen::inRange<size_t>(0, s.failpoints.size());
    f.kill_point = s.failpoints[point];
    f.occurrence = *rc::gen::inRange(1, s.max_occurrence + 1);
    // A pattern is one of the points it matched in the discovery, as `run` plans it (issue 33:
    // its first match only, the pattern's occurrence 1, missed what run found); shrinks to the
    // first of them.
    std::vector<CrashPoint> hits;
    if (IsPointPattern(f.kill_point))
      hits = PointsMatching(f.kill_point, discovered, s.hold_points);
    if (!hits.empty()) {
      const CrashPoint& hit = hits[*rc::gen::inRange<size_t>(0, hits.size())];
      f.kill_point = hit.name;
      f.occurrence = hit.occurrence;
    }
    std::vector<Moment> moments = KillMoments(f.kill_point);
    f.when = moments[*rc::gen::inRange<size_t>(0, moments.size())];
  }
  const std::vector<std::string>& kinds = on.downstream_faults;
  if (!kinds.empty() && Coin(4))
    f.downstream_fault = kinds[*rc::gen::inRange<size_t>(0, kinds.size())];
  // Issue 6 (docs/faults.md): drawn only when the scenario has them, so that the schedules of
  // other scenarios stay as they were; each shrinks to none, then to the first point.
  const FaultSpec& x = s.faults;
  if (on.pause && Coin(4)) {
    f.pause = {x.pause.points[*rc::gen::inRange<size_t>(0, x.pause.points.size())],
               x.pause.duration_ms};
  }
  if (on.overlap && Coin(4)) {
    f.overlap = {x.overlap.points[*rc::gen::inRange<size_t>(0, x.overlap.points.size())],
                 x.overlap.hold_ms, x.overlap.second_holds_at};
  }
  if (on.burst && Coin(4)) f.downstream_burst = x.downstream_burst.length;
  if (on.net && Coin(4)) f.net = GenNet(x.net);
  if (on.server && Coin(4)) f.server = GenServer(x.server);
  return f;
}

}  // namespace

FaultSwitches SwitchesOf(const Scenario& s, bool all_faults) {
  FaultSwitches on;
  const FaultSpec& x = s.faults;
  on.duplicates = all_faults || s.duplicate_trigger_probability > 0;
  if (all_faults || s.downstream.fault_probability > 0) on.downstream_faults = s.downstream.faults;
  if (all_faults && on.downstream_faults.empty())
    on.downstream_faults = {kFailBeforeCommit, kCommitNoAnswer, kDelay};
  on.pause = !x.pause.points.empty() && (all_faults || x.pause.probability > 0);
  on.overlap = !x.overlap.points.empty() && (all_faults || x.overlap.probability > 0);
  on.burst = x.downstream_burst.length > 0 && (all_faults || x.downstream_burst.probability > 0);
  on.net = !x.net.points.empty() && (all_faults || x.net.probability > 0);
  on.server = !x.server.points.empty() && (all_faults || x.server.probability > 0);
  return on;
}

rc::Gen<Plan> GenSchedule(const Scenario& s, uint64_t seed, bool all_faults,
                          const std::vector<CrashPoint>& discovered) {
  return rc::gen::exec([&s, seed, all_faults, &discovered] {
    const FaultSwitches on = SwitchesOf(s, all_faults);
    Plan plan{s.name, seed, 0, {}};
    int calendar = *rc::gen::inRange(
        1, static_cast<int>(std::min<size_t>(s.dates.size(), kMaxExploreDates)) + 1);
    PersistenceModel model = s.models[*rc::gen::inRange<size_t>(0, s.models.size())];
    // Firings: with duplicates, at least one, each naming any date of the calendar (a date may
    // fire twice, or after a later one: a backfill); without, each date once, in order, as
    // `run` fires them.
    int firings = on.duplicates ? *rc::gen::inRange(1, 2 * calendar + 2) : calendar;
    std::map<std::string, int> triggers;
    for (int i = 0; i < firings; ++i) {
      PlannedRun run;
      run.biz_date = s.dates[on.duplicates ? *rc::gen::inRange(0, calendar) : i];
      run.trigger = ++triggers[run.biz_date];
      int faulted = *rc::gen::inRange(0, s.retry.max_attempts + 1);
      for (int a = 0; a < faulted; ++a) run.attempts.push_back(GenFault(s, on, model, discovered));
      // Trailing attempts without a fault say nothing: leave them out.
      while (!run.attempts.empty() && run.attempts.back().None()) run.attempts.pop_back();
      plan.runs.push_back(std::move(run));
    }
    DrawModelSeeds(plan);
    return plan;
  });
}

int FaultedAttempts(const Plan& plan) {
  int n = 0;
  for (const auto& run : plan.runs) n += static_cast<int>(run.attempts.size());
  return n;
}

}  // namespace killpoint
