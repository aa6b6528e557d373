// What changed between two runs (a baseline and a new run): per scenario and invariant, new
// violations, fixed ones, newly not exercised or not demonstrated, unchanged ones, and what was
// added or removed. Plain data with JSON beside it, computed by a pure function; the CLI
// (`killpoint diff`, `run --baseline`) gates on it and the reports render it
// (docs/ci-integration.md, "Baseline").
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "results/results.h"
#include "util/name_table.h"

namespace killpoint {

// How one (scenario, invariant) changed, worst first. "Worse" kinds can fail the gate.
enum class Change {
  kNewViolation,          // must hold: violated now, not before (or added, and violated)
  kNewlyNotExercised,     // not exercised now (or its job never ran), tested before
  kNewlyNotDemonstrated,  // expected to break: shown before, held in every trial now
  kStillViolated,         // violated before and now
  kStillNotExercised,     // not exercised before and now
  kFixed,                 // must hold: violated before, held now
  kNowExercised,          // not exercised before, tested now
  kNewlyShown,            // expected to break: not demonstrated before, shown now
  kAdded,                 // in the new run only (and not violated, not unexercised)
  kRemoved,               // in the baseline only
  kUnchanged,             // the same verdict
};
inline constexpr auto kChangeNames = MakeNameTable<Change>({
    {Change::kNewViolation, "new violation"},
    {Change::kNewlyNotExercised, "newly not exercised"},
    {Change::kNewlyNotDemonstrated, "newly not demonstrated"},
    {Change::kStillViolated, "still violated"},
    {Change::kStillNotExercised, "still not exercised"},
    {Change::kFixed, "fixed"},
    {Change::kNowExercised, "now exercised"},
    {Change::kNewlyShown, "newly shown"},
    {Change::kAdded, "added"},
    {Change::kRemoved, "removed"},
    {Change::kUnchanged, "unchanged"},
});
static_assert(kChangeNames.Unique());
std::string ToString(Change c);  // "new violation", "fixed", ...
std::string JsonName(Change c);  // "new_violation", "fixed", ...
// A change the gate fails on by default: a new violation, or newly not exercised.
bool IsWorse(Change c);

// One invariant of one scenario in both runs.
struct InvariantChange {
  std::string scenario;
  std::string invariant;
  std::string expectation;  // kMustHold or kExpectedViolation (the new run's, else the old's)
  Change change = Change::kUnchanged;
  std::optional<InvariantStatus> before, after;  // nullopt: absent from that run
  int violated_before = 0, trials_before = 0;
  int violated_after = 0, trials_after = 0;
  // The first counterexample's replay commands in the new run, for a new violation.
  std::string replay;
  bool operator==(const InvariantChange&) const = default;
};

struct RunDiff {
  std::string before_source, after_source;     // what each side was read from (for the reports)
  std::vector<std::string> scenarios_added;    // in the new run only
  std::vector<std::string> scenarios_removed;  // in the baseline only
  // Every invariant of either run: the new run's in its order, then the removed ones.
  std::vector<InvariantChange> invariants;
  // A scenario of the new run whose job never ran (no verdict: the gate is exit 2).
  std::vector<std::string> never_ran;

  std::vector<const InvariantChange*> Of(Change c) const;
  int Count(Change c) const;
  bool Worse() const;    // a change IsWorse
  bool Changed() const;  // a change other than kUnchanged, kStill*
  bool operator==(const RunDiff&) const = default;
};

// Compares `before` (the baseline) with `after`. Scenarios are matched by name, invariants by
// name within a scenario; a name repeated within a run counts once (its first).
RunDiff DiffRuns(const RunResults& before, const RunResults& after);

void to_json(nlohmann::json& j, const InvariantChange& c);
void to_json(nlohmann::json& j, const RunDiff& d);

}  // namespace killpoint
