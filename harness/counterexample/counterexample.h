// A counterexample file: everything needed to read a violation and to replay it. Written by
// `killpoint run` for the first violations of each invariant and by `killpoint explore` for the
// shrunk schedule; read by `killpoint replay`. One JSON object (docs/counterexamples.md):
//   format        "killpoint-counterexample/1": a reader refuses any other
//   scenario      the scenario file (absolute path), its name and its text, which replay runs
//   plan          the schedule (plan.h): dates, triggers, each attempt's fault
//   invariant     the violated invariant, with its explanation; verdicts: all of the trial's
//   events        the trial's history
//   final_state   what the checkers saw: the database's rows, the state file, the deliveries
//   reproduce     the command that replays it
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "check/verdict.h"
#include "history/event.h"
#include "plan/plan.h"
#include "util/result.h"

namespace killpoint {

inline constexpr const char* kCounterexampleFormat = "killpoint-counterexample/1";

struct CounterexampleFile {
  std::string killpoint_version;
  std::string scenario_file;  // absolute
  std::string scenario_name;
  std::string scenario_text;  // the scenario file as it was: replay needs no copy of it
  std::string source;         // "run" (a sampled trial) or "explore" (a shrunk schedule)
  Plan plan;
  std::string invariant;
  std::string explanation;
  std::vector<Verdict> verdicts;
  std::vector<Event> events;
  nlohmann::json final_state = nlohmann::json::object();
  std::string reproduce;
  // Set when `killpoint explore` was interrupted (SIGINT/SIGTERM) while shrinking: the schedule
  // violates the invariant but may not be the smallest ("interrupted by SIGINT while shrinking,
  // after 12 of 300 steps"). Empty otherwise, and then absent from the file.
  std::string partial;

  bool operator==(const CounterexampleFile&) const = default;
};

nlohmann::json ToJson(const CounterexampleFile& c);

// Writes it atomically (util/atomic_file.h).
Status WriteCounterexample(const std::filesystem::path& path, const CounterexampleFile& c);

// Reads one; a missing, damaged or foreign file (another format or version) is a BadInput error
// that names the file and what is wrong with it.
Result<CounterexampleFile> ReadCounterexample(const std::filesystem::path& path);

// The events with what differs from run to run left out (pids, the sandbox path, wall-clock
// durations, the job's stderr, its reported waits for a lock, its writes outside the sandbox):
// two replays of a deterministic
// schedule give equal fingerprints. Each event is numbered by its position among those kept.
// With an overlap's second instance, its events come last, sorted, and unnumbered.
std::vector<nlohmann::json> Fingerprint(const std::vector<Event>& events);

}  // namespace killpoint
