#include "service/redis.h"

#include <signal.h>

#include <optional>

#include "service/redis_client.h"
#include "service/server_launch.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;

class Redis : public RunningService {
 public:
  Redis(fs::path dir, std::unique_ptr<ServerProcess> server, ServiceAddress address,
        RedisConnection admin)
      : dir_(std::move(dir)),
        server_(std::move(server)),
        address_(std::move(address)),
        admin_(std::move(admin)) {}

  ~Redis() override {
    admin_.reset();
    server_->Stop(SIGTERM);  // nothing to save: it exits at once
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  Result<ServiceAddress> Reset() override {
    // Synchronous (not ASYNC): the next trial must find nothing. Every database, not only 0:
    // a job may SELECT another.
    if (auto r = admin_->Command({"FLUSHALL", "SYNC"}); !r) {
      return Error::Harness(
          "redis service: cannot empty the server for the trial: " + r.error().message +
          (server_->Running() ? "" : "; the server is gone: " + server_->LogTail()));
    }
    return address_;
  }

 private:
  fs::path dir_;
  std::unique_ptr<ServerProcess> server_;
  ServiceAddress address_;
  std::optional<RedisConnection> admin_;
};

// No configuration file: every setting that matters is on the command line. `--save ""` and
// `--appendonly no`: no persistence (without a file, redis-server 7 would snapshot).
ServerCommand RedisServerCommand(const fs::path& dir, const ServerMarks& marks, int port) {
  return {{kRedisServer, "--bind", "127.0.0.1", "--port", std::to_string(port), "--dir",
           dir.string(), "--save", "", "--appendonly", "no", "--daemonize", "no", "--logfile", "",
           "--protected-mode", "yes"},
          ServerEnvironment(marks),
          dir / "server.log",
          marks.cgroup_procs_fd};
}

Result<std::unique_ptr<ServerProcess>> StartRedisOn(const fs::path& dir, const ServerMarks& marks,
                                                    ServiceAddress& address) {
  return StartOnPickedPort(
      "redis-server", [&](int port) { return RedisServerCommand(dir, marks, port); },
      [&](int port) {
        ServiceAddress a = address;
        a.port = port;
        return RedisAccepting(a);
      },
      address.port);
}

}  // namespace

Result<std::unique_ptr<RunningService>> StartRedis(const std::string& name, const fs::path& root,
                                                   const ServerMarks& marks) {
  if (!fs::exists(kRedisServer)) {
    return Error::Harness("a redis service needs Debian's redis-server (" +
                          std::string(kRedisServer) +
                          "), which is not installed: run scripts/setup.sh (package redis-server)");
  }
  auto dir = MakeServerFolder(root, name);
  if (!dir) return dir.error();
  ServiceAddress address{"redis", "127.0.0.1", 0, kRedisTrialDatabase, ""};
  auto server = StartRedisOn(dir.value(), marks, address);
  if (!server) return Error::Harness("redis service " + name + ": " + server.error().message);
  auto admin = RedisConnection::Open(address);
  if (!admin) return Error::Harness("redis service " + name + ": " + admin.error().message);
  return std::unique_ptr<RunningService>(
      new Redis(dir.value(), std::move(server.value()), address, std::move(admin.value())));
}

}  // namespace killpoint
