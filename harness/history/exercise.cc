#include "history/exercise.h"

#include <algorithm>
#include <set>

#include "history/event_registry.h"
#include "history/history.h"

namespace killpoint {
namespace {

// Whether an event of `type` happened in the attempt (date, trigger, attempt), by instance 1.
template <class Pred>
bool HappenedIn(const std::vector<Event>& events, const char* type, const PlannedRun& run,
                int attempt, Pred pred) {
  return std::any_of(events.begin(), events.end(), [&](const Event& e) {
    return e.type == type && e.biz_date == run.biz_date && e.trigger == run.trigger &&
           e.attempt == attempt && pred(e);
  });
}

bool Any(const Event&) { return true; }

void CountOthers(const std::vector<Event>& events, const PlannedRun& run, int attempt,
                 const AttemptFault& f, TrialExercise& out) {
  auto count = [&](bool planned, bool happened) {
    if (!planned) return;
    ++out.other_faults;
    if (happened) ++out.other_fired;
  };
  count(!f.pause.point.empty(), HappenedIn(events, event::Pause::kType, run, attempt, Any));
  // With second_holds_at, the three-party order happened only if the second reached its hold
  // point (a third ran then); a second that never got there leaves an overlap of two.
  count(!f.overlap.point.empty(),
        HappenedIn(
            events,
            f.overlap.second_holds_at.empty() ? event::Overlap::kType : event::SecondHeld::kType,
            run, attempt, Any));
  count(!f.downstream_fault.empty(),
        HappenedIn(events, event::Publish::kType, run, attempt, [&](const Event& e) {
          const event::Publish p = Read<event::Publish>(e);
          return !p.burst && p.fault == f.downstream_fault;
        }));
  count(!f.net.point.empty(), HappenedIn(events, event::NetFault::kType, run, attempt, Any));
  count(!f.server.point.empty(), HappenedIn(events, event::ServerFault::kType, run, attempt, Any));
  // A burst spans attempts and dates: it happened if any publish was one of it.
  count(f.downstream_burst > 0, std::any_of(events.begin(), events.end(), [](const Event& e) {
          return e.type == event::Publish::kType && Read<event::Publish>(e).burst;
        }));
}

}  // namespace

int TrialExercise::Fired() const {
  return static_cast<int>(
      std::count_if(kills.begin(), kills.end(), [](const PlannedKill& k) { return k.fired; }));
}

std::vector<PersistenceModel> TrialExercise::Models() const {
  std::vector<PersistenceModel> models;
  for (const PlannedKill& k : kills) {
    if (k.fired && std::find(models.begin(), models.end(), k.model) == models.end())
      models.push_back(k.model);
  }
  if (models.empty()) models.push_back(PersistenceModel::kProcess);
  std::sort(models.begin(), models.end(), NameLess);
  return models;
}

TrialExercise ExerciseOf(const Plan& plan, const std::vector<Event>& events) {
  TrialExercise out;
  for (const PlannedRun& run : plan.runs) {
    for (size_t i = 0; i < run.attempts.size(); ++i) {
      const AttemptFault& f = run.attempts[i];
      const int attempt = static_cast<int>(i) + 1;
      if (!f.kill_point.empty()) {
        bool fired = HappenedIn(events, event::Kill::kType, run, attempt,
                                [](const Event& e) { return InstanceOf(e) == 1; });
        out.kills.push_back({f.kill_point, f.model, fired});
      }
      CountOthers(events, run, attempt, f, out);
    }
  }
  out.outside = OutsideWritesOf(events);
  out.start_failure = StartFailureOf(events);
  std::set<std::string> refused;
  for (const event::Refused& r : AllOf<event::Refused>(events))
    refused.insert(r.calls.begin(), r.calls.end());
  out.refused.assign(refused.begin(), refused.end());
  return out;
}

Plan FiredOnly(const Plan& plan, const TrialExercise& e) {
  Plan out = plan;
  size_t k = 0;
  for (PlannedRun& run : out.runs) {
    for (AttemptFault& f : run.attempts) {
      if (f.kill_point.empty()) continue;
      if (k < e.kills.size() && !e.kills[k].fired) {
        f.kill_point.clear();
        f.occurrence = 1;
        f.model = PersistenceModel::kProcess;
        f.when = Moment::kBefore;
        f.model_seed.reset();
      }
      ++k;
    }
  }
  return out;
}

void to_json(nlohmann::json& j, const PlannedKill& k) {
  j = {{"point", k.point}, {"model", k.model}, {"fired", k.fired}};
}
void from_json(const nlohmann::json& j, PlannedKill& k) {
  j.at("point").get_to(k.point);
  k.model = j.value("model", PersistenceModel::kProcess);
  j.at("fired").get_to(k.fired);
}

void to_json(nlohmann::json& j, const TrialExercise& e) {
  j = {{"kills", e.kills}, {"other_faults", e.other_faults}, {"other_fired", e.other_fired}};
  if (!e.outside.empty()) j["outside"] = e.outside;
  if (e.start_failure) j["start_failure"] = *e.start_failure;
  if (!e.refused.empty()) j["refused"] = e.refused;
}
void from_json(const nlohmann::json& j, TrialExercise& e) {
  e = TrialExercise{};
  j.at("kills").get_to(e.kills);
  e.other_faults = j.value("other_faults", 0);
  e.other_fired = j.value("other_fired", 0);
  e.outside = j.value("outside", std::vector<OutsideWrite>{});
  e.refused = j.value("refused", std::vector<std::string>{});
  if (j.contains("start_failure")) e.start_failure = j.at("start_failure").get<StartFailure>();
}

std::ostream& operator<<(std::ostream& os, const TrialExercise& e) {
  return os << nlohmann::json(e).dump() << (e.known ? "" : " (unknown)");
}

}  // namespace killpoint
