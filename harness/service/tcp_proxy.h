// The fault proxy between a job and one of its services (docs/services.md, "Faults between the
// job and its services"): a TCP relay on 127.0.0.1 that the job's environment points at, in
// front of the server, which the harness's own reset and checks reach directly. Armed with one
// fault for an attempt, it counts the points it sees go by (the k-th COMMIT of the PostgreSQL or
// MySQL framing, the k-th SET ... NX of Redis's: service/client_framing.h; the k-th command of a
// verb; the k-th new connection) and, at the planned hit of a command (commit, set_nx, a verb):
//   - drop_answer: forwards the command, waits for the server's first answer byte (so it has
//     happened), throws it away and cuts the client's connection (RST);
//   - reset: cuts both sides (RST to the client) before the command reaches the server;
//   - delay: holds the server's answer `ms` before it goes on to the client;
//   - stall: holds the command itself `ms` before it goes on to the server (the job stalls
//     there, its other connections going on);
//   - refuse (connect): resets that connection and every new one for `ms` after it.
// Given a CommandHook, it also asks, for every command its framing reads
// (service/client_framing.h), what to do before forwarding it (docs/services.md, "Command points"):
// go on, have the job killed before it (what came before it still reaches the server, then the
// connection is cut), or ask again once the server answered it (for a command the server never
// answers, once it was written to the server), when the answer is dropped and the connection cut if
// the job was killed. One thread runs a poll loop over the listener and every connection's two
// sockets (plain poll, non-blocking sockets; docs/services.md says why not Boost.Asio).
// Thread-safe: Arm, Disarm and CutAll may be called from any thread; `on_fired` runs on the proxy's
// thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "scenario/net_point.h"  // the moments and actions
#include "service/client_framing.h"
#include "util/result.h"

namespace killpoint {

struct ProxyFault {
  std::string moment;  // kNetCommit, kNetSetNx, kNetConnect or a command's verb; empty: none
  NetAction action = NetAction::kDropAnswer;  // refuse only at a connect (NetActionsAt)
  int hit = 1;                                // the hit of `moment` since Arm, 1-based
  int64_t ms = 0;                             // delay's and stall's hold, refuse's window
};

using ProxyFired = std::function<void(const ProxyFault& fired)>;

// A CommandHook's answer: forward the command; forward it and ask again once it was answered
// (kAskAfter, before only); the job was killed (before: the command is dropped; after: its
// answer); hold it, unforwarded, until Release names its ticket (kHold, before only; the proxy
// serves every other connection meanwhile).
enum class CommandStep { kForward, kAskAfter, kKilled, kHold };
// Called on the proxy's thread for each command, by its verb (ClientCommand::verb): `after`
// false before it goes to the server, with a ticket of its own (for Release), and true once
// answered (only after a kAskAfter; ticket 0).
using CommandHook =
    std::function<CommandStep(const std::string& verb, bool after, uint64_t ticket)>;

class TcpProxy {
 public:
  // Listens on 127.0.0.1 (a port the kernel picks) and relays to upstream_host:upstream_port,
  // reading the client's bytes as `protocol` frames them (the commands of its CountedMoment
  // are counted).
  static Result<std::unique_ptr<TcpProxy>> Start(const std::string& upstream_host,
                                                 int upstream_port, WireProtocol protocol);
  virtual ~TcpProxy() = default;  // stops the thread, closes every connection

  virtual int port() const = 0;
  // From now on, counts hits from zero and applies `fault` at its hit (once); `on_fired` is
  // told when it does.
  virtual void Arm(const ProxyFault& fault, ProxyFired on_fired) = 0;
  virtual void Disarm() = 0;
  // From now on, each command goes by `hook` (none: forwarded unasked). Thread-safe.
  virtual void SetCommandHook(CommandHook hook) = 0;
  // The command held with `ticket` goes on with `step` (kForward, kAskAfter or kKilled); a ticket
  // no connection holds any more (its client went) is ignored. Thread-safe.
  virtual void Release(uint64_t ticket, CommandStep step) = 0;
  // Closes every open connection (a trial's start: nothing of the last one lingers).
  virtual void CutAll() = 0;
};

}  // namespace killpoint
