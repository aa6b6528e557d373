// The events of one attempt of the job: its process, the crash points it passed, the kill and
// what the persistence model and the crash checks made of it.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "history/event_fields.h"
#include "history/outside_write.h"
#include "plan/crash_point.h"
#include "scenario/persistence_model.h"

namespace killpoint::event {

// The attempt's process (or an overlap's second or third instance) started.
struct Spawn {
  static constexpr const char* kType = "spawn";
  int64_t pid = 0;
  nlohmann::json fault;  // the attempt's planned fault (plan/plan.h), null for an instance's
  std::optional<int> instance;
  static constexpr auto kFields =
      std::tuple{Field("pid", &Spawn::pid), Field("fault", &Spawn::fault, kOmitEmpty),
                 Field("instance", &Spawn::instance)};
  bool operator==(const Spawn&) const = default;
};

// How an attempt's process (or an overlap's instance) ended.
struct Exit {
  static constexpr const char* kType = "exit";
  int64_t code = -1;               // the shell's code: 128 + signo when a signal ended it
  std::optional<int64_t> signal;   // the signal that ended it, if one did
  std::string stderr_tail;         // the last lines it wrote to stderr
  bool killed_by_harness = false;  // a planned kill or a timeout, not the job's own doing
  std::optional<int> instance;
  static constexpr auto kFields = std::tuple{
      Field("code", &Exit::code), Field("signal", &Exit::signal),
      Field("stderr", &Exit::stderr_tail), Field("killed_by_harness", &Exit::killed_by_harness),
      Field("instance", &Exit::instance)};
  bool operator==(const Exit&) const = default;

  // Exited by itself with code 0.
  bool Succeeded() const { return !signal && code == 0; }
  // The code it exited with, -1 when a signal ended it.
  int64_t ExitCode() const { return signal ? -1 : code; }
};

// The attempt hung past the job's timeout and was killed.
struct Timeout {
  static constexpr const char* kType = "timeout";
  int64_t timeout_ms = 0;
  std::optional<int> instance;
  static constexpr auto kFields =
      std::tuple{Field("timeout_ms", &Timeout::timeout_ms), Field("instance", &Timeout::instance)};
  bool operator==(const Timeout&) const = default;
};

// The attempt passed a crash point (named, or of the syscall interception).
struct Failpoint {
  static constexpr const char* kType = "failpoint";
  std::string point;
  int64_t hit = 0;
  int64_t pid = 0;
  std::optional<int64_t> bytes;  // a write's size, when the interception reported it
  std::string unseen;  // where the shim noticed a write it had not seen (docs/syscall-shim.md)
  std::optional<int> instance;
  static constexpr auto kFields = std::tuple{Field("point", &Failpoint::point),
                                             Field("hit", &Failpoint::hit),
                                             Field("pid", &Failpoint::pid),
                                             Field("bytes", &Failpoint::bytes),
                                             Field("unseen", &Failpoint::unseen, kOmitEmpty),
                                             Field("instance", &Failpoint::instance)};
  bool operator==(const Failpoint&) const = default;
};

// The syscall points an attempt passed one way (protocol v1.2: not armed, never answered), as
// counts by name, recorded once the job has exited: their arrival interleaves with other events
// by chance, their counts do not.
struct PointsPassed {
  static constexpr const char* kType = "points_passed";
  std::map<std::string, int64_t> points;
  std::map<std::string, std::string> unseen;  // of those, unseen writes -> where noticed
  std::optional<int> instance;
  static constexpr auto kFields = std::tuple{Field("points", &PointsPassed::points),
                                             Field("unseen", &PointsPassed::unseen, kOmitEmpty),
                                             Field("instance", &PointsPassed::instance)};
  bool operator==(const PointsPassed&) const = default;
};

// What an attempt's caps on recorded points left out (run/attempt_state.h, kMaxPointNames).
struct PointsDropped {
  static constexpr const char* kType = "points_dropped";
  int64_t hits = 0;     // how many went unrecorded
  std::string example;  // the first name left out
  int64_t max_names = 0;
  int64_t max_events = 0;
  static constexpr auto kFields =
      std::tuple{Field("hits", &PointsDropped::hits), Field("example", &PointsDropped::example),
                 Field("max_names", &PointsDropped::max_names),
                 Field("max_events", &PointsDropped::max_events)};
  bool operator==(const PointsDropped&) const = default;
};

// The files an attempt created, changed or removed outside its sandbox (history/outside_write.h),
// recorded once the job has exited, sorted by path.
struct OutsideWrites {
  static constexpr const char* kType = "outside_writes";
  std::vector<OutsideWrite> writes;
  static constexpr auto kFields = std::tuple{Field("writes", &OutsideWrites::writes)};
  bool operator==(const OutsideWrites&) const = default;
};

// The system calls of an attempt that the supervisor refused (protocol v1.6: io_uring_setup),
// whose effects it could not have followed, recorded once the job has exited.
struct Refused {
  static constexpr const char* kType = "refused";
  std::vector<std::string> calls;
  static constexpr auto kFields = std::tuple{Field("calls", &Refused::calls)};
  bool operator==(const Refused&) const = default;
};

// The harness killed the attempt at a crash point.
struct Kill {
  static constexpr const char* kType = "kill";
  std::string point;
  int64_t hit = 0;  // which hit of the point
  Moment when = Moment::kBefore;
  // The model applied after it: process when missing (as in plans); nullopt for a name this
  // killpoint does not know.
  std::optional<PersistenceModel> model = PersistenceModel::kProcess;
  std::string unseen;  // where the shim noticed a write it had not seen; "" if none
  // A planned mid kill of a write (run/mid_cut.h): the write's size and file offset, when the
  // interception sent them, and the bytes of it that reached the file (when = "mid"); or, when
  // it could not be cut and the kill fell before it (when = "before"), the plan's moment
  // ("mid") and why (`uncut`: one_page, no_offset, too_small, no_size, failed).
  std::optional<int64_t> bytes;
  std::optional<int64_t> offset;
  std::optional<int64_t> kept;
  std::optional<Moment> planned;
  std::string uncut;
  std::string pattern;  // the plan's point pattern (plan/crash_point.h) that chose the point
  static constexpr auto kFields = std::tuple{Field("point", &Kill::point),
                                             Field("hit", &Kill::hit),
                                             Field("when", &Kill::when),
                                             Field("model", &Kill::model),
                                             Field("unseen", &Kill::unseen, kOmitEmpty),
                                             Field("bytes", &Kill::bytes),
                                             Field("offset", &Kill::offset),
                                             Field("kept", &Kill::kept),
                                             Field("planned", &Kill::planned),
                                             Field("uncut", &Kill::uncut, kOmitEmpty),
                                             Field("pattern", &Kill::pattern, kOmitEmpty)};
  bool operator==(const Kill&) const = default;
};

// The persistence model undid what a kill would have lost (durability/durability.h).
struct Rollback {
  static constexpr const char* kType = "rollback";
  std::optional<PersistenceModel> model;
  std::vector<std::string> changes;  // what it undid, one line each
  static constexpr auto kFields =
      std::tuple{Field("model", &Rollback::model), Field("changes", &Rollback::changes)};
  bool operator==(const Rollback&) const = default;
};

// The scenario's own checks marked after_every_crash, run on the sandbox after a kill and its
// persistence model (or on the live service), before the retry.
struct CrashCheck {
  static constexpr const char* kType = "crash_check";
  std::string point = "?";
  int64_t hit = 1;
  std::optional<PersistenceModel> model;              // nullopt when missing or unknown
  nlohmann::json verdicts = nlohmann::json::array();  // [Verdict]; an array, maybe empty
  static constexpr auto kFields =
      std::tuple{Field("point", &CrashCheck::point), Field("hit", &CrashCheck::hit),
                 Field("model", &CrashCheck::model), Field("verdicts", &CrashCheck::verdicts)};
  bool operator==(const CrashCheck&) const = default;
};

// Connections to the control channel during the attempt that were refused for their peer
// (another user, or a HIT from a peer gone before it could be told).
struct PeerRefused {
  static constexpr const char* kType = "peer_refused";
  int64_t connections = 0;
  static constexpr auto kFields = std::tuple{Field("connections", &PeerRefused::connections)};
  bool operator==(const PeerRefused&) const = default;
};

}  // namespace killpoint::event
