// What a fault of the services does (docs/services.md): the fault proxy's actions on a
// connection and the server faults' actions on a server process. The one place their names are
// spelled (util/name_table.h gives each its NameOf and JSON); scenarios, plans and histories
// write those names, so they never change.
#pragma once

#include "util/name_table.h"

namespace killpoint {

// The proxy in front of a service, at a command (or a commit, a set_nx) or at a connect
// (scenario/net_point.h, NetActionsAt says which fits where).
enum class NetAction {
  kDropAnswer,  // the command reaches the server, its answer never reaches the job
  kReset,       // the connection is cut; the command never reaches the server
  kDelay,       // the answer is held `ms`
  kStall,       // the command is held `ms` before it goes to the server: the job stalls there
                // past a lock's TTL or a statement timeout, its other connections going on
  kRefuse,      // new connections are refused for `ms`
};
inline constexpr auto kNetActionNames = MakeNameTable<NetAction>(
    {
        {NetAction::kDropAnswer, "drop_answer"},
        {NetAction::kReset, "reset"},
        {NetAction::kDelay, "delay"},
        {NetAction::kStall, "stall"},
        {NetAction::kRefuse, "refuse"},
    },
    "a network fault's action");
static_assert(kNetActionNames.Unique());
constexpr const auto& NamesOf(NetAction) { return kNetActionNames; }
// Whether the action lasts the fault's `ms`.
constexpr bool TakesMs(NetAction a) {
  return a != NetAction::kDropAnswer && a != NetAction::kReset;
}

// A server fault ("Server faults"): every process of the server SIGKILLed and the server started
// again on the same data and port, or SIGSTOPped for `duration_ms` of real time.
enum class ServerAction { kKill, kPause };
inline constexpr auto kServerActionNames = MakeNameTable<ServerAction>(
    {
        {ServerAction::kKill, "kill"},
        {ServerAction::kPause, "pause"},
    },
    "a server fault's action");
static_assert(kServerActionNames.Unique());
constexpr const auto& NamesOf(ServerAction) { return kServerActionNames; }

}  // namespace killpoint
