// The run's servers that outlive a scenario (docs/services.md, "Isolation"): a server the
// harness started for one scenario's worker goes back here when the worker is done, and the
// next worker or trial that needs a server of the same kind and durability, in the same sandbox
// root, borrows it instead of booting another (a RabbitMQ broker takes 7 to 30 s to boot). The
// per-trial reset (RunningService::Reset) is what isolates trials, whoever borrowed the server
// before. Every server runs with a thread of its own (a HostedServer's): it dies with the thread
// that started it (PR_SET_PDEATHSIG, proc/server_process.h), so that thread must live as long
// as the server, not as long as the worker that first needed it.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "service/server_thread.h"
#include "service/service.h"
#include "util/result.h"

namespace killpoint {

// A server and the thread that started it (and starts it again after a server kill). The server
// is stopped before the thread ends.
struct HostedServer {
  std::unique_ptr<ServerThread> thread;
  std::unique_ptr<RunningService> service;

  // Starts a server of `kind` (StartService) on a new thread of its own.
  static Result<HostedServer> Start(const std::string& name, const std::string& kind,
                                    const std::filesystem::path& root, const ServerMarks& marks,
                                    bool fast);
};

class ServerPool {
 public:
  ServerPool() = default;
  ~ServerPool();  // stops every server it holds (all must have been given back)
  ServerPool(const ServerPool&) = delete;
  ServerPool& operator=(const ServerPool&) = delete;

  // An idle server of `kind` and durability `fast` in `root`, or a new one (HostedServer::Start;
  // `name` and `marks` are only for a new one). Thread-safe; servers start outside the lock.
  Result<HostedServer> Borrow(const std::string& name, const std::string& kind,
                              const std::filesystem::path& root, const ServerMarks& marks,
                              bool fast);
  // Gives back a server Borrow lent, for the next borrower of its kind. Thread-safe.
  void Return(const std::string& kind, const std::filesystem::path& root, bool fast,
              HostedServer server);

  // How many servers it started: for the tests.
  int started() const;

 private:
  using Key = std::tuple<std::string, std::filesystem::path, bool>;
  mutable std::mutex mu_;
  std::map<Key, std::vector<HostedServer>> idle_;  // guarded by mu_
  int started_ = 0;                                // guarded by mu_
};

}  // namespace killpoint
