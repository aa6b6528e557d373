// Network fault points (docs/services.md, "Faults between the job and its services"): the
// moments the fault proxy in front of a service counts, named "net:<service>:<moment>" like the
// downstream's "downstream:<path>:<moment>" (plan/crash_point.h), and what it may do there.
//   net:db:commit      the k-th COMMIT a job sends to postgres or mariadb service db (the proxy
//                      reads the client's framing): drop_answer, reset or delay
//   net:cache:set_nx   the k-th SET ... NX (or SETNX) a job sends to redis service cache:
//                      drop_answer, reset or delay
//   net:db:connect     the k-th new connection to service db (any kind): refuse
//   net:db:UPDATE      the k-th command of that verb (a command point, below): drop_answer,
//                      reset, delay or stall
// And the command points (docs/services.md, "Command points"): every command a job sends to a
// service, named by its verb as the proxy's framing reads it, a crash point like a file
// operation (killed before it is forwarded or after its answer):
//   net:db:INSERT, net:db:COMMIT, net:cache:DEL, net:mq:basic.publish, net:mq:basic.ack
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scenario/fault_action.h"

namespace killpoint {

inline constexpr std::string_view kNetPrefix = "net:";
inline constexpr const char* kNetCommit = "commit";
inline constexpr const char* kNetSetNx = "set_nx";
inline constexpr const char* kNetConnect = "connect";

struct NetPoint {
  std::string service;
  std::string moment;  // kNetCommit, kNetSetNx, kNetConnect, or a command's verb
  bool operator==(const NetPoint&) const = default;
};

// "net:db:commit" -> {db, commit}, "net:db:UPDATE" -> {db, UPDATE}, "net:mq:basic.ack" -> {mq,
// basic.ack}; nullopt for any other shape (an empty service, a moment that is neither a fault
// moment nor a verb as the proxy spells one: upper case, or an AMQP class.method in lower case).
std::optional<NetPoint> ParseNetPoint(std::string_view point);
inline bool IsNetPoint(std::string_view point) { return point.starts_with(kNetPrefix); }

// "net:<service>:<verb>", a command point.
std::string NetCommandPoint(std::string_view service, std::string_view verb);
// A net: point that names no fault moment: a command point.
bool IsNetCommandPoint(std::string_view point);

// The actions the proxy can take at `moment` (scenario/fault_action.h): drop_answer, reset,
// delay, stall at a commit, a set_nx or a command; refuse at a connect.
std::vector<NetAction> NetActionsAt(std::string_view moment);
// Those of `listed` (a scenario's) that fit `point`'s moment, in NetActionsAt's order, which the
// planner's draws depend on; empty for a point that is no net: point.
std::vector<NetAction> NetActionsFitting(std::string_view point,
                                         const std::vector<NetAction>& listed);

// Whether the proxy in front of a service of `kind` sees `moment`: a commit on postgres and
// mariadb, a set_nx on redis, a connect on any, a command on postgres, mariadb and redis (an
// upper-case verb) or rabbitmq (an AMQP method).
bool NetMomentSeenOn(std::string_view moment, std::string_view kind);

}  // namespace killpoint
