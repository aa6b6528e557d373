#include "counterexample/fired_only.h"

#include <map>
#include <tuple>

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

// The counts of points passed one way, an object (created empty on first use).
nlohmann::json& Counts(nlohmann::json& passed) {
  return passed.emplace("points", nlohmann::json::object()).first.value();
}

void Count(nlohmann::json& points, const std::string& name, int n) {
  points[name] = points.value(name, 0) + n;
}

}  // namespace

std::vector<Event> HistoryOfFiredOnly(const Plan& plan, const TrialExercise& e,
                                      const std::vector<Event>& events, bool uses_shim) {
  const Plan trimmed = FiredOnly(plan, e);
  const auto changed = Trimmed(trimmed, plan);
  if (changed.empty()) return events;
  // Per changed attempt and instance: the syscall points that now pass one way.
  std::map<std::pair<AttemptKey, int>, nlohmann::json> passed;
  std::vector<Event> out;
  for (const Event& ev : events) {
    Event e2 = ev;
    if (e2.type == event::kTrialStart) e2.data["plan"] = trimmed;
    auto it = changed.find(KeyOf(ev));
    if (it == changed.end()) {
      out.push_back(std::move(e2));
      continue;
    }
    const bool one_way = OneWayNow(it->second, uses_shim);
    const std::pair<AttemptKey, int> where{KeyOf(ev), InstanceOf(ev)};
    if (e2.type == event::kSpawn && e2.data.contains("fault")) e2.data["fault"] = it->second;
    // Without the kill a downstream point leaves no trace (AttemptState::OnDownstreamPoint).
    if (e2.type == event::kFailpoint && IsDownstreamPoint(e2.data.value("point", ""))) continue;
    // The second's hold point waits whatever the kill (docs/faults.md, "Three instances").
    const std::string point = e2.data.value("point", "");
    const bool held_there = InstanceOf(ev) == 2 && point == it->second.overlap.second_holds_at;
    if (one_way && e2.type == event::kFailpoint && IsSyscallPoint(point) && !held_there) {
      Count(Counts(passed[where]), e2.data["point"].get<std::string>(), 1);
      continue;
    }
    if (one_way && e2.type == event::kPointsPassed) {  // merged into the counts, placed below
      for (const auto& [name, n] : e2.data["points"].items())
        Count(Counts(passed[where]), name, n.get<int>());
      continue;
    }
    // The instance's points_passed come right before the first instance's exit
    // (AttemptState::Finish).
    if (one_way && e2.type == event::kExit && InstanceOf(ev) == 1) {
      for (int instance : {1, 2, 3}) {
        auto p = passed.find({KeyOf(ev), instance});
        if (p == passed.end() || p->second.value("points", nlohmann::json::object()).empty())
          continue;
        Event counts{0,
                     ev.t_ms,
                     event::kPointsPassed,
                     ev.biz_date,
                     ev.trigger,
                     ev.attempt,
                     {{"points", p->second["points"]}}};
        if (instance != 1) counts.data["instance"] = instance;
        out.push_back(std::move(counts));
      }
    }
    out.push_back(std::move(e2));
  }
  for (size_t i = 0; i < out.size(); ++i) out[i].seq = static_cast<int64_t>(i);
  return out;
}

}  // namespace killpoint
