// What the kinds with one server process share (postgres.cc, mariadb.cc, redis.cc; rabbitmq.cc
// has an epmd beside its broker): the server's folder, process and address, an admin connection
// of the kind's client kept open for the resets, the server faults (a kill and a restart on the
// same data and port, a freeze by signal), and a stop that throws the data away. A kind says
// how its server starts, when it answers and how its admin connection opens; the rest is here,
// written once.
#pragma once

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "proc/server_process.h"
#include "service/server_launch.h"
#include "service/service.h"

namespace killpoint {

// How a kind's server ends with the service (its data is thrown away): the signal, and how long
// the server has before SIGKILL.
struct ServerStop {
  int signal = SIGTERM;
  std::chrono::milliseconds patience = std::chrono::seconds(10);
};

template <typename Admin>
class SingleServer : public RunningService {
 public:
  struct Parts {
    std::string kind;  // the server's name in errors: "postgres"
    std::filesystem::path dir;
    std::unique_ptr<ServerProcess> server;
    ServiceAddress address;
    Admin admin;
    ServerMarks marks;
    bool fast = false;
    ServerStop stop;
  };

  explicit SingleServer(Parts parts)
      : kind_(std::move(parts.kind)),
        dir_(std::move(parts.dir)),
        server_(std::move(parts.server)),
        address_(std::move(parts.address)),
        admin_(std::move(parts.admin)),
        marks_(std::move(parts.marks)),
        fast_(parts.fast),
        stop_(parts.stop) {}

  ~SingleServer() override {
    admin_.reset();
    server_->Stop(stop_.signal, stop_.patience);
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  // Every process of the server SIGKILLed, then the same command on the same folder and port,
  // and a new admin connection once it answers.
  Status KillAndRestart() override {
    admin_.reset();
    server_->KillAll();
    auto server = StartOnPort(kind_, Command(), [&] { return Accepting(); });
    if (!server) return server.error();
    server_ = std::move(server.value());
    auto admin = OpenAdmin();
    if (!admin) return admin.error();
    admin_.emplace(std::move(admin.value()));
    return Ok();
  }

  Status Freeze(bool stop) override {
    server_->SignalAll(stop ? SIGSTOP : SIGCONT);
    return Ok();
  }

 protected:
  // The server's command on address_.port, as it started.
  virtual ServerCommand Command() const = 0;
  // Whether it answers a login on address_.
  virtual bool Accepting() const = 0;
  virtual Result<Admin> OpenAdmin() const = 0;

  // A reset that failed: `e`, with the server's log when the server is gone.
  Error ResetFailed(const std::string& what, const Error& e) const {
    return Error::Harness(
        kind_ + " service: cannot " + what + ": " + e.message +
        (server_->Running() ? "" : "; the server is gone: " + server_->LogTail()));
  }

  const std::string kind_;
  const std::filesystem::path dir_;
  std::unique_ptr<ServerProcess> server_;
  ServiceAddress address_;
  std::optional<Admin> admin_;
  const ServerMarks marks_;
  const bool fast_;
  const ServerStop stop_;
};

}  // namespace killpoint
