// A plan: the concrete fault schedule of one trial, derived only from (scenario, seed, trial).
// Plain data with JSON, equality and printing, so a plan can be stored, compared and replayed.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "plan/crash_point.h"
#include "scenario/fault_action.h"
#include "scenario/persistence_model.h"

namespace killpoint {

// Stop the attempt's processes (SIGSTOP) at the first hit of `point`, for `duration_ms` of
// real time, then let them go on (SIGCONT). docs/faults.md.
struct PauseFault {
  std::string point = {};  // empty: no pause
  int64_t duration_ms = 0;
  bool operator==(const PauseFault&) const = default;
};

// While the attempt is held at the first hit of `point`, start a second instance of the same
// date; release the first once the second exited or `hold_ms` passed. With `second_holds_at`,
// the second is held at the first hit of that point instead (the first is released then), until
// the first exited and a third instance of the date ran (docs/faults.md, "Three instances").
struct OverlapFault {
  std::string point = {};  // empty: no overlap
  int64_t hold_ms = 0;
  std::string second_holds_at = {};  // empty: the second is never held, no third instance
  bool operator==(const OverlapFault&) const = default;
};

// At the `hit`-th pass of `point` ("net:db:commit") in the attempt, the proxy in front of the
// service does `action` (scenario/fault_action.h), `ms` long for one that TakesMs.
// docs/services.md.
struct NetFault {
  std::string point = {};  // empty: no network fault
  NetAction action = NetAction::kDropAnswer;
  int hit = 1;
  int64_t ms = 0;
  bool operator==(const NetFault&) const = default;
};

// At the first hit of the job's `point` in the attempt, server `service` suffers `action`:
// kill (SIGKILL of every process of it, then a restart on the same data and port, while the job
// is held at its point) or pause (SIGSTOP for `duration_ms` of real time; the job goes on at
// once). docs/services.md, "Server faults".
struct ServerFault {
  std::string point = {};  // empty: no server fault
  std::string service = {};
  ServerAction action = ServerAction::kKill;
  int64_t duration_ms = 0;  // a pause's
  bool operator==(const ServerFault&) const = default;
};

// What happens to one attempt. A default-constructed fault is no fault.
struct AttemptFault {
  std::string kill_point;        // named failpoint to die at; empty: no kill
  int occurrence = 1;            // die at this hit of the point within the attempt (1-based)
  std::string downstream_fault;  // applied to the attempt's first publish; empty: none
  PersistenceModel model = PersistenceModel::kProcess;  // applied after the kill
  Moment when = Moment::kBefore;  // before, after or mid the operation (plan/crash_point.h)
  PauseFault pause = {};          // initialized here, so that aggregate inits may leave it out
  OverlapFault overlap = {};
  // From this attempt on, the next downstream_burst POST /publish fail before commit (503),
  // across attempts and dates, until the final pass; 0: none.
  int downstream_burst = 0;
  NetFault net = {};  // between the job and a service (docs/services.md)
  ServerFault server = {};
  // The seed of the model's draws after this kill (DeriveSeed, plan/seed.h), drawn by the
  // planner for a kill under a seeded model (torn's cut; ModelIsSeeded). JSON "model_seed",
  // read as well from "torn_seed", its name before a second model could draw. Absent (plans
  // written before it, or a kill under a model that draws nothing): the runner derives the
  // seed those plans were run with (SeedPurpose::kModelSeedOfOldPlans).
  std::optional<uint64_t> model_seed = std::nullopt;

  bool None() const {
    return kill_point.empty() && downstream_fault.empty() && pause.point.empty() &&
           overlap.point.empty() && downstream_burst == 0 && net.point.empty() &&
           server.point.empty();
  }
  bool operator==(const AttemptFault&) const = default;
};

// One firing of the scheduler for a business date, retried per the retry policy.
struct PlannedRun {
  std::string biz_date;
  int trigger = 1;                     // 2 when the scheduler fires the same date again
  std::vector<AttemptFault> attempts;  // attempts[i] is attempt i+1; beyond the end: no fault

  const AttemptFault& FaultFor(int attempt) const;
  bool operator==(const PlannedRun&) const = default;
};

struct Plan {
  std::string scenario;
  uint64_t seed = 0;
  int trial = 0;
  std::vector<PlannedRun> runs;  // in the order the scheduler fires them

  // A one-line story: "2026-11-01#1 a1 kill@after_publish#1; 2026-11-02#1 -".
  std::string Summary() const;
  // The persistence models of the plan's kills, by name (NameLess), without repeats;
  // {process} if none.
  std::vector<PersistenceModel> Models() const;
  bool operator==(const Plan&) const = default;
};

void to_json(nlohmann::json& j, const AttemptFault& f);
void from_json(const nlohmann::json& j, AttemptFault& f);
void to_json(nlohmann::json& j, const PlannedRun& r);
void from_json(const nlohmann::json& j, PlannedRun& r);
void to_json(nlohmann::json& j, const Plan& p);
void from_json(const nlohmann::json& j, Plan& p);
std::ostream& operator<<(std::ostream& os, const Plan& p);

}  // namespace killpoint
