// Faults of the real services (docs/services.md): the proxy's network faults and the server
// kills and pauses.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "history/event_fields.h"
#include "scenario/fault_action.h"

namespace killpoint::event {

// The proxy in front of a service did its planned fault.
struct NetFault {
  static constexpr const char* kType = "net_fault";
  std::string point;
  NetAction action = NetAction::kDropAnswer;
  int64_t hit = 0;
  std::optional<int64_t> ms;  // an action that TakesMs
  static constexpr auto kFields =
      std::tuple{Field("point", &NetFault::point), Field("action", &NetFault::action),
                 Field("hit", &NetFault::hit), Field("ms", &NetFault::ms)};
  bool operator==(const NetFault&) const = default;
};

// A server fault (docs/services.md, "Server faults"): a kill and restart, or a pause.
struct ServerFault {
  static constexpr const char* kType = "server_fault";
  std::string service;
  std::string kind;
  std::string durability;
  ServerAction action = ServerAction::kKill;
  std::string point;
  int64_t hit = 0;
  // A kill's: the rows or keys before it, how many of them the restarted server lacks, up to 5
  // of them, how long the restart took, and a snapshot that could not be read.
  std::optional<int64_t> before;
  std::optional<int64_t> lost;
  std::optional<std::vector<std::string>> missing;
  std::optional<int64_t> restart_ms;
  std::string error;
  std::optional<int64_t> duration_ms;  // a pause's
  static constexpr auto kFields = std::tuple{Field("service", &ServerFault::service),
                                             Field("kind", &ServerFault::kind),
                                             Field("durability", &ServerFault::durability),
                                             Field("action", &ServerFault::action),
                                             Field("point", &ServerFault::point),
                                             Field("hit", &ServerFault::hit),
                                             Field("before", &ServerFault::before),
                                             Field("lost", &ServerFault::lost),
                                             Field("missing", &ServerFault::missing),
                                             Field("restart_ms", &ServerFault::restart_ms),
                                             Field("error", &ServerFault::error, kOmitEmpty),
                                             Field("duration_ms", &ServerFault::duration_ms)};
  bool operator==(const ServerFault&) const = default;
};

// The paused server goes on.
struct ServerResume {
  static constexpr const char* kType = "server_resume";
  std::string service;
  std::string point;
  int64_t paused_ms = 0;
  static constexpr auto kFields =
      std::tuple{Field("service", &ServerResume::service), Field("point", &ServerResume::point),
                 Field("paused_ms", &ServerResume::paused_ms)};
  bool operator==(const ServerResume&) const = default;
};

}  // namespace killpoint::event
