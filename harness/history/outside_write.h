// Writes outside the sandbox (docs/syscall-shim.md, "Writes outside the sandbox"): a file the
// job created, changed, renamed or removed where no persistence model applies and the next
// trial finds it. The shim reports each (protocol v1.5); the runner records an attempt's as one
// outside_writes event once the job has exited; the reports show them per scenario and the
// invariant writes_in_sandbox makes them a violation.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "history/event.h"

namespace killpoint {

// What a path outside the sandbox is, for the reports.
namespace outside_kind {
// In the trial's sandbox folder but not under KILLPOINT_WORKDIR ("$KILLPOINT_WORKDIR/../x"):
// the later attempts of the trial see it, no persistence model applies, the trial's end removes it.
inline constexpr const char* kTrial = "trial";
// Under a temporary folder (/tmp, /var/tmp, /dev/shm, $TMPDIR): the next trials see it.
inline constexpr const char* kTemp = "temp";
inline constexpr const char* kElsewhere = "elsewhere";  // anywhere else
}  // namespace outside_kind

struct OutsideWrite {
  std::string path;              // as the reports show it (a kTrial path from $KILLPOINT_WORKDIR)
  std::string kind;              // outside_kind
  std::vector<std::string> ops;  // sorted, without repeats: open, rename, unlink, mkdir...
  bool operator==(const OutsideWrite&) const = default;
};

void to_json(nlohmann::json& j, const OutsideWrite& w);
void from_json(const nlohmann::json& j, OutsideWrite& w);
std::ostream& operator<<(std::ostream& os, const OutsideWrite& w);

// The outside_writes events' writes (of every attempt and instance), one per path, sorted by
// path, with the ops of every attempt.
std::vector<OutsideWrite> OutsideWritesOf(const std::vector<Event>& events);

// Folds `add` into `into` (sorted by path; ops merged).
void MergeOutsideWrites(std::vector<OutsideWrite>& into, const std::vector<OutsideWrite>& add);

// "/var/lib/app/state.json (open, rename)".
std::string Describe(const OutsideWrite& w);
// What such a write means, by its kind: "no persistence model applied to it, and the next
// trial sees it" (the later attempts of the trial, for kTrial).
std::string OutsideConsequence(const std::string& kind);

}  // namespace killpoint
