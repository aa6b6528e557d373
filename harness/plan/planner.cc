#include "plan/planner.h"

#include <algorithm>

#include "plan/crash_point.h"
#include "plan/point_pattern.h"
#include "plan/rng.h"
#include "plan/seed.h"
#include "scenario/net_point.h"

namespace killpoint {
namespace {

// Chances of faults beyond the trial's primary kill.
constexpr double kKillLaterDate = 0.3;  // first attempt of a later date
constexpr double kKillRetry = 0.15;     // an attempt after the first

// One persistence model per trial, so that every verdict has one model to its name. Drawn
// from its own stream: the main stream is the same whatever the scenario's models are.
PersistenceModel DrawModel(const Scenario& s, uint64_t seed, int trial) {
  if (s.models.size() == 1) return s.models.front();
  PlanRng rng(DeriveSeed(seed, s.name, trial, SeedPurpose::kModel));
  return s.models[rng.Below(s.models.size())];
}

// The occurrences a kill at `point` may be planned at: 1..max_occurrence, but no more than the
// discovered run passed the point (a planned kill at a hit the job never makes never fires);
// a point the discovery did not pass (a retry's, a later date's) keeps max_occurrence.
int HitsToDrawFrom(const Scenario& s, const std::vector<CrashPoint>& discovered,
                   const std::string& point) {
  int passed = 0;
  for (const CrashPoint& p : discovered) {
    if (p.name == point) passed = std::max(passed, p.occurrence);
  }
  return passed == 0 ? s.max_occurrence : std::min(s.max_occurrence, passed);
}

// A pattern draws one of the discovered hits it matches, uniformly. The trial's primary kill
// (the first attempt of the first date: the attempt the discovery ran) takes it as a concrete
// point and occurrence, as `killpoint points` lists them; a later attempt or date, which may
// pass other points (a database that exists by then, a retry's recovery), keeps the pattern
// at the hit's rank among the matching ones, so that it fires wherever that attempt goes.
// Without any hit (no discovery, or none matched) the pattern itself is planned and fires at
// its occurrence-th matching hit (run/attempt_state.h).
AttemptFault DrawKill(const Scenario& s, const std::vector<CrashPoint>& discovered, PlanRng& rng,
                      size_t point_index, PersistenceModel model, bool primary) {
  AttemptFault f;
  f.kill_point = s.failpoints[point_index];
  std::vector<CrashPoint> hits;
  if (IsPointPattern(f.kill_point)) hits = PointsMatching(f.kill_point, discovered, s.hold_points);
  if (hits.empty()) {
    f.occurrence = 1 + static_cast<int>(rng.Below(
                           static_cast<uint64_t>(HitsToDrawFrom(s, discovered, f.kill_point))));
  } else {
    size_t rank = rng.Below(hits.size());
    if (primary) {
      f.kill_point = hits[rank].name;
      f.occurrence = hits[rank].occurrence;
    } else {
      f.occurrence = static_cast<int>(rank) + 1;
    }
  }
  rng.Next();  // once drew the model here; kept so that a seed keeps meaning the same plans
  f.model = model;
  std::vector<Moment> moments = KillMoments(f.kill_point);
  // Named points have one moment; drawing nothing for them keeps their plans as they were.
  if (moments.size() > 1) f.when = moments[rng.Below(moments.size())];
  return f;
}

PlannedRun DrawRun(const Scenario& s, const std::vector<CrashPoint>& discovered, PlanRng& rng,
                   const std::string& date, int trigger, bool first, PersistenceModel model) {
  PlannedRun run;
  run.biz_date = date;
  run.trigger = trigger;
  if (s.failpoints.empty()) return run;
  size_t n = s.failpoints.size();
  if (!first && rng.Chance(kKillLaterDate))
    run.attempts.push_back(DrawKill(s, discovered, rng, rng.Below(n), model, false));
  for (int a = 2; a <= s.retry.max_attempts; ++a) {
    if (!rng.Chance(kKillRetry)) break;
    run.attempts.resize(static_cast<size_t>(a - 1));
    run.attempts.push_back(DrawKill(s, discovered, rng, rng.Below(n), model, false));
  }
  return run;
}

void DrawDownstreamFault(const Scenario& s, PlanRng& rng, Plan& plan) {
  const DownstreamSpec& d = s.downstream;
  if (d.faults.empty() || !rng.Chance(d.fault_probability)) return;
  PlannedRun& run = plan.runs[rng.Below(plan.runs.size())];
  if (run.attempts.empty()) run.attempts.resize(1);
  run.attempts[0].downstream_fault = d.faults[rng.Below(d.faults.size())];
}

// Pauses, overlaps and bursts (issue 6, docs/faults.md) come from a stream of their own, so
// that adding them to a scenario leaves its kills, dates and triggers as they were, and a
// scenario without them draws nothing at all.
PlanRng FaultRng(const Scenario& s, uint64_t seed, int trial) {
  return PlanRng(DeriveSeed(seed, s.name, trial, SeedPurpose::kFaults));
}

AttemptFault& AttemptOf(PlannedRun& run, int attempt) {
  if (static_cast<int>(run.attempts.size()) < attempt)
    run.attempts.resize(static_cast<size_t>(attempt));
  return run.attempts[static_cast<size_t>(attempt - 1)];
}

// A network fault (docs/services.md): one of the points, an action that fits it, a hit.
NetFault DrawNet(const NetSpec& n, PlanRng& rng) {
  NetFault f;
  f.point = n.points[rng.Below(n.points.size())];
  std::vector<NetAction> fit = NetActionsFitting(f.point, n.actions);
  if (fit.empty()) return {};  // no action of the scenario fits this point
  f.action = fit[rng.Below(fit.size())];
  f.hit = 1 + static_cast<int>(rng.Below(static_cast<size_t>(n.max_hit)));
  if (TakesMs(f.action)) f.ms = n.ms;
  return f;
}

// A server fault (docs/services.md, "Server faults"): a point, a service, an action.
ServerFault DrawServer(const ServerFaultSpec& x, PlanRng& rng) {
  ServerFault f;
  f.point = x.points[rng.Below(x.points.size())];
  f.service = x.services[rng.Below(x.services.size())];
  f.action = x.actions[rng.Below(x.actions.size())];
  if (f.action == ServerAction::kPause) f.duration_ms = x.duration_ms;
  return f;
}

// Each attempt the retry policy allows may be paused, and may be overlapped, with the
// scenario's probabilities, at one of its points.
void DrawProcessFaults(const Scenario& s, PlanRng& rng, Plan& plan) {
  const FaultSpec& f = s.faults;
  for (PlannedRun& run : plan.runs) {
    for (int a = 1; a <= s.retry.max_attempts; ++a) {
      if (!f.pause.points.empty() && rng.Chance(f.pause.probability)) {
        AttemptOf(run, a).pause = {f.pause.points[rng.Below(f.pause.points.size())],
                                   f.pause.duration_ms};
      }
      if (!f.overlap.points.empty() && rng.Chance(f.overlap.probability)) {
        AttemptOf(run, a).overlap = {f.overlap.points[rng.Below(f.overlap.points.size())],
                                     f.overlap.hold_ms, f.overlap.second_holds_at};
      }
      if (!f.net.points.empty() && rng.Chance(f.net.probability)) {
        AttemptOf(run, a).net = DrawNet(f.net, rng);
      }
      if (!f.server.points.empty() && rng.Chance(f.server.probability)) {
        AttemptOf(run, a).server = DrawServer(f.server, rng);
      }
    }
  }
}

// At most one burst a trial, like the downstream fault: it starts at the first attempt of one
// of the plan's runs and goes on across attempts until `length` publishes have failed.
void DrawBurst(const Scenario& s, PlanRng& rng, Plan& plan) {
  const BurstSpec& b = s.faults.downstream_burst;
  if (b.length <= 0 || !rng.Chance(b.probability)) return;
  AttemptOf(plan.runs[rng.Below(plan.runs.size())], 1).downstream_burst = b.length;
}

}  // namespace

Plan MakePlan(const Scenario& s, uint64_t seed, int trial,
              const std::vector<CrashPoint>& discovered) {
  Plan plan{s.name, seed, trial, {}};
  const PersistenceModel model = DrawModel(s, seed, trial);
  uint64_t rotation = PlanRng(DeriveSeed(seed, s.name, trial, SeedPurpose::kPlanShared)).Next();
  PlanRng rng(DeriveSeed(seed, s.name, trial, SeedPurpose::kPlan));

  size_t dates = 1 + rng.Below(s.dates.size());
  for (size_t i = 0; i < dates; ++i) {
    int triggers = rng.Chance(s.duplicate_trigger_probability) ? 2 : 1;
    for (int t = 1; t <= triggers; ++t) {
      plan.runs.push_back(DrawRun(s, discovered, rng, s.dates[i], t, plan.runs.empty(), model));
    }
  }
  if (!s.failpoints.empty()) {
    size_t n = s.failpoints.size();
    size_t primary = (static_cast<uint64_t>(trial) + rotation) % n;
    PlannedRun& first = plan.runs.front();
    if (first.attempts.empty()) first.attempts.resize(1);
    std::string downstream = first.attempts[0].downstream_fault;
    first.attempts[0] = DrawKill(s, discovered, rng, primary, model, true);
    first.attempts[0].downstream_fault = downstream;
  }
  DrawDownstreamFault(s, rng, plan);
  PlanRng faults = FaultRng(s, seed, trial);
  DrawProcessFaults(s, faults, plan);
  DrawBurst(s, faults, plan);
  DrawModelSeeds(plan);
  return plan;
}

}  // namespace killpoint
