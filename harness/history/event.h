// One entry of a trial's history: the only input the checkers and reports need.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

namespace killpoint {

// The event types and their data: history/events/, registered in history/event_registry.h.
// Attempt events carry biz_date, trigger and attempt; downstream events carry the attempt that
// was running when the request arrived.

struct Event {
  int64_t seq = 0;   // position in the trial, from 0
  int64_t t_ms = 0;  // virtual clock: starts at 0, advanced only by retry waits
  std::string type;
  std::string biz_date;  // empty when not tied to a date
  int trigger = 0;       // 0 when not tied to a run
  int attempt = 0;       // 0 when not tied to an attempt; the final pass counts on
  nlohmann::json data = nlohmann::json::object();

  bool operator==(const Event&) const = default;
};

// Which instance of the attempt an event belongs to: data.instance, 1 when absent; 0 for a
// downstream request that arrived while both instances ran and that the job did not label.
int InstanceOf(const Event& e);

void to_json(nlohmann::json& j, const Event& e);
// Throws nlohmann::json::exception on a missing field or an out-of-range number.
void from_json(const nlohmann::json& j, Event& e);

// The "trial" of one line of a history journal (history_log.h); throws like from_json.
int TrialOfJournalLine(const nlohmann::json& j);
std::ostream& operator<<(std::ostream& os, const Event& e);

}  // namespace killpoint
