#include "plan/exhaustive.h"

#include <algorithm>

#include "plan/seed.h"
#include "scenario/net_point.h"

namespace killpoint {

std::vector<AttemptFault> EnumerateFaults(const std::vector<CrashPoint>& points,
                                          const std::vector<PersistenceModel>& models) {
  std::vector<AttemptFault> out;
  for (const CrashPoint& p : points) {
    for (Moment when : KillMoments(p.name)) {
      for (PersistenceModel model : models) {
        AttemptFault f;
        f.kill_point = p.name;
        f.occurrence = p.occurrence;
        f.when = when;
        f.model = model;
        out.push_back(f);
      }
    }
  }
  return out;
}

namespace {

// A kill at every point but the hold points and, without the shim, the syscall points.
std::vector<AttemptFault> KillSpace(const Scenario& s, const std::vector<CrashPoint>& discovered) {
  std::vector<CrashPoint> killable = discovered;
  // The discovery loads the shim; a kill at a syscall point fires only where the scenario does.
  const bool shim = s.UsesShim();
  std::erase_if(killable, [&](const CrashPoint& p) {
    return std::find(s.hold_points.begin(), s.hold_points.end(), p.name) != s.hold_points.end() ||
           (!shim && IsSyscallPoint(p.name));
  });
  return EnumerateFaults(killable, s.models);
}

}  // namespace

std::vector<AttemptFault> EnumerateProcessFaults(const Scenario& s) {
  std::vector<AttemptFault> out;
  for (const std::string& point : s.faults.pause.points) {
    AttemptFault f;
    f.pause = {point, s.faults.pause.duration_ms};
    out.push_back(f);
  }
  for (const std::string& point : s.faults.overlap.points) {
    AttemptFault f;
    f.overlap = {point, s.faults.overlap.hold_ms, s.faults.overlap.second_holds_at};
    out.push_back(f);
  }
  if (s.faults.downstream_burst.length > 0) {
    AttemptFault f;
    f.downstream_burst = s.faults.downstream_burst.length;
    out.push_back(f);
  }
  // A network fault at each point's first hit, with each action the scenario lists that fits.
  const NetSpec& n = s.faults.net;
  for (const std::string& point : n.points) {
    for (NetAction action : NetActionsFitting(point, n.actions)) {
      AttemptFault f;
      f.net = {point, action, 1, TakesMs(action) ? n.ms : 0};
      out.push_back(f);
    }
  }
  // A server fault at each point, on each service, with each action (docs/services.md).
  const ServerFaultSpec& x = s.faults.server;
  for (const std::string& point : x.points) {
    for (const std::string& service : x.services) {
      for (ServerAction action : x.actions) {
        AttemptFault f;
        f.server = {point, service, action, action == ServerAction::kPause ? x.duration_ms : 0};
        out.push_back(f);
      }
    }
  }
  return out;
}

std::vector<AttemptFault> ExhaustiveSpace(const Scenario& s,
                                          const std::vector<CrashPoint>& discovered) {
  std::vector<AttemptFault> space = KillSpace(s, discovered);
  for (AttemptFault& f : EnumerateProcessFaults(s)) space.push_back(std::move(f));
  return space;
}

void DropImpossibleMoments(std::vector<AttemptFault>& space, const std::vector<CrashPoint>& points,
                           const std::vector<std::string>& unseen) {
  for (size_t i = 0; i < points.size() && i < unseen.size(); ++i) {
    if (unseen[i].empty()) continue;
    std::vector<Moment> possible = KillMoments(points[i].name, unseen[i]);
    std::erase_if(space, [&](const AttemptFault& f) {
      return f.kill_point == points[i].name && f.occurrence == points[i].occurrence &&
             std::find(possible.begin(), possible.end(), f.when) == possible.end();
    });
  }
}

std::vector<ExhaustiveTry> ExhaustiveTries(const Scenario& s,
                                           const std::vector<DatePoints>& by_date) {
  std::vector<ExhaustiveTry> out;
  for (size_t d = 0; d < by_date.size(); ++d) {
    std::vector<AttemptFault> kills = KillSpace(s, by_date[d].points);
    DropImpossibleMoments(kills, by_date[d].points, by_date[d].unseen);
    for (AttemptFault& f : kills) out.push_back({d, std::move(f)});
  }
  for (AttemptFault& f : EnumerateProcessFaults(s)) out.push_back({0, std::move(f)});
  return out;
}

size_t SpreadTrial(int trial, int count, size_t total) {
  if (count <= 0) return 0;
  return static_cast<size_t>(static_cast<unsigned __int128>(trial) * total /
                             static_cast<unsigned>(count));
}

Plan MakeExhaustivePlan(const Scenario& s, uint64_t seed, int trial, const ExhaustiveTry& t) {
  Plan plan{s.name, seed, trial, {}};
  for (size_t d = 0; d <= t.date && d < s.dates.size(); ++d) {
    plan.runs.push_back({s.dates[d], 1, {}});
  }
  if (!plan.runs.empty()) plan.runs.back().attempts = {t.fault};
  DrawModelSeeds(plan);
  return plan;
}

}  // namespace killpoint
