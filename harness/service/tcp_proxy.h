// The fault proxy between a job and one of its services (docs/services.md, "Faults between the
// job and its services"): a TCP relay on 127.0.0.1 that the job's environment points at, in
// front of the server, which the harness's own reset and checks reach directly. Armed with one
// fault for an attempt, it counts the points it sees go by (the k-th COMMIT of the PostgreSQL
// framing, the k-th new connection) and, at the planned hit:
//   - drop_answer (commit): forwards the COMMIT, waits for the server's first answer byte (so
//     the commit has happened), throws it away and cuts the client's connection (RST);
//   - reset (commit): cuts both sides (RST to the client) before the COMMIT reaches the server;
//   - delay (commit): holds the server's answer `ms` before it goes on to the client;
//   - refuse (connect): resets that connection and every new one for `ms` after it.
// One thread runs a poll loop over the listener and every connection's two sockets (plain
// poll, non-blocking sockets; docs/services.md says why not Boost.Asio). Thread-safe: Arm,
// Disarm and CutAll may be called from any thread; `on_fired` runs on the proxy's thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "scenario/net_point.h"  // the moments and actions
#include "util/result.h"

namespace killpoint {

struct ProxyFault {
  std::string moment;  // kNetCommit or kNetConnect; empty: none
  std::string action;  // drop_answer, reset or delay at a commit; refuse at a connect
  int hit = 1;         // the hit of `moment` since Arm, 1-based
  int64_t ms = 0;      // delay's hold, refuse's window
};

using ProxyFired = std::function<void(const ProxyFault& fired)>;

class TcpProxy {
 public:
  // Listens on 127.0.0.1 (a port the kernel picks) and relays to upstream_host:upstream_port;
  // `pg`: reads the client's bytes as PostgreSQL's frontend framing (else no commit is seen).
  static Result<std::unique_ptr<TcpProxy>> Start(const std::string& upstream_host,
                                                 int upstream_port, bool pg);
  virtual ~TcpProxy() = default;  // stops the thread, closes every connection

  virtual int port() const = 0;
  // From now on, counts hits from zero and applies `fault` at its hit (once); `on_fired` is
  // told when it does.
  virtual void Arm(const ProxyFault& fault, ProxyFired on_fired) = 0;
  virtual void Disarm() = 0;
  // Closes every open connection (a trial's start: nothing of the last one lingers).
  virtual void CutAll() = 0;
};

}  // namespace killpoint
