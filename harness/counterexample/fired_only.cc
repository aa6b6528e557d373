#include "counterexample/fired_only.h"

#include <map>
#include <tuple>

#include "history/event_registry.h"
#include "plan/crash_point.h"

namespace killpoint {
namespace {

using AttemptKey = std::tuple<std::string, int, int>;  // biz_date, trigger, attempt

AttemptKey KeyOf(const Event& e) { return {e.biz_date, e.trigger, e.attempt}; }

// The attempts whose planned kill never fired, with their fault in the trimmed plan.
std::map<AttemptKey, AttemptFault> Trimmed(const Plan& trimmed, const Plan& plan) {
  std::map<AttemptKey, AttemptFault> out;
  for (size_t r = 0; r < plan.runs.size(); ++r) {
    for (size_t a = 0; a < plan.runs[r].attempts.size(); ++a) {
      const AttemptFault& now = trimmed.runs[r].attempts[a];
      if (now != plan.runs[r].attempts[a])
        out[{plan.runs[r].biz_date, plan.runs[r].trigger, static_cast<int>(a) + 1}] = now;
    }
  }
  return out;
}

// Every syscall point of such an attempt passes one way without the kill.
bool OneWayNow(const AttemptFault& f, bool uses_shim) {
  return uses_shim && !IsSyscallPoint(f.pause.point) && !IsSyscallPoint(f.overlap.point);
}

}  // namespace

std::vector<Event> HistoryOfFiredOnly(const Plan& plan, const TrialExercise& e,
                                      const std::vector<Event>& events, bool uses_shim) {
  const Plan trimmed = FiredOnly(plan, e);
  const auto changed = Trimmed(trimmed, plan);
  if (changed.empty()) return events;
  // Per changed attempt and instance: the syscall points that now pass one way.
  std::map<std::pair<AttemptKey, int>, std::map<std::string, int64_t>> passed;
  std::vector<Event> out;
  for (const Event& ev : events) {
    Event e2 = ev;
    if (Is<event::TrialStart>(e2)) Edit<event::TrialStart>(e2, [&](auto& t) { t.plan = trimmed; });
    auto it = changed.find(KeyOf(ev));
    if (it == changed.end()) {
      out.push_back(std::move(e2));
      continue;
    }
    const bool one_way = OneWayNow(it->second, uses_shim);
    const std::pair<AttemptKey, int> where{KeyOf(ev), InstanceOf(ev)};
    if (auto s = As<event::Spawn>(e2); s && !s->fault.is_null())
      Edit<event::Spawn>(e2, [&](auto& spawn) { spawn.fault = it->second; });
    if (auto f = As<event::Failpoint>(e2)) {
      // Without the kill a downstream point leaves no trace (AttemptState::OnDownstreamPoint).
      if (IsDownstreamPoint(f->point)) continue;
      // The second's hold point waits whatever the kill (docs/faults.md, "Three instances").
      const bool held_there = InstanceOf(ev) == 2 && f->point == it->second.overlap.second_holds_at;
      if (one_way && IsSyscallPoint(f->point) && !held_there) {
        ++passed[where][f->point];
        continue;
      }
    }
    if (auto p = As<event::PointsPassed>(e2); p && one_way) {  // merged into the counts, below
      for (const auto& [name, n] : p->points) passed[where][name] += n;
      continue;
    }
    // The instance's points_passed come right before the first instance's exit
    // (AttemptState::Finish).
    if (one_way && Is<event::Exit>(e2) && InstanceOf(ev) == 1) {
      for (int instance : {1, 2, 3}) {
        auto p = passed.find({KeyOf(ev), instance});
        if (p == passed.end() || p->second.empty()) continue;
        event::PointsPassed counts{p->second, {}, std::nullopt};
        if (instance != 1) counts.instance = instance;
        out.push_back({0, ev.t_ms, event::PointsPassed::kType, ev.biz_date, ev.trigger, ev.attempt,
                       DataOf(counts)});
      }
    }
    out.push_back(std::move(e2));
  }
  for (size_t i = 0; i < out.size(); ++i) out[i].seq = static_cast<int64_t>(i);
  return out;
}

}  // namespace killpoint
