// Which of a trial's planned faults happened: a planned kill fired when the history holds a
// kill event in the attempt it was planned for (whatever point name matched it: a planned
// point may be a pattern), and did not fire when the attempt ran past it (the point never
// came, or came fewer times than the planned occurrence) or never ran. Pauses, overlaps and
// downstream faults likewise, from their pause, overlap and publish events. No result may read
// "held" for a kill that never happened (docs/reports.md, "Not exercised").
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "history/event.h"
#include "history/event_registry.h"
#include "history/outside_write.h"
#include "history/start_failure.h"
#include "plan/plan.h"

namespace killpoint {

struct PlannedKill {
  std::string point;  // the plan's kill_point, as planned (a name or a pattern)
  PersistenceModel model = PersistenceModel::kProcess;  // the one the plan gave it
  bool fired = false;
  bool operator==(const PlannedKill&) const = default;
};

struct TrialExercise {
  std::vector<PlannedKill> kills;  // in plan order
  int other_faults = 0;            // pauses, overlaps and downstream faults planned
  int other_fired = 0;             // of those, how many happened
  // False for a trial read from a journal written before this was recorded: then nothing is
  // known of it, and it counts as exercised (old results keep their verdicts).
  bool known = true;
  // Not a planned fault but what the trial did besides: the files its attempts changed outside
  // the sandbox (history/outside_write.h), so that the results count them per scenario.
  std::vector<OutsideWrite> outside = {};
  // Set when every attempt failed the same way before any crash point (history/start_failure.h):
  // the job never ran.
  std::optional<StartFailure> start_failure = {};
  // The system calls the supervisor refused in any attempt (event::Refused::kType), sorted: what
  // the job did there ran unseen or not at all, so the trial tested less than it says.
  std::vector<std::string> refused = {};

  int Fired() const;
  bool AllFired() const { return Fired() == static_cast<int>(kills.size()); }
  // The models the fired kills applied, by name (NameLess), without repeats; {process} if
  // none fired.
  std::vector<PersistenceModel> Models() const;
  bool operator==(const TrialExercise&) const = default;
};

TrialExercise ExerciseOf(const Plan& plan, const std::vector<Event>& events);

// The plan less the kills that never fired (each such attempt keeps its other faults).
Plan FiredOnly(const Plan& plan, const TrialExercise& e);

void to_json(nlohmann::json& j, const PlannedKill& k);
void from_json(const nlohmann::json& j, PlannedKill& k);
void to_json(nlohmann::json& j, const TrialExercise& e);
void from_json(const nlohmann::json& j, TrialExercise& e);
std::ostream& operator<<(std::ostream& os, const TrialExercise& e);

}  // namespace killpoint
