#include "service/rabbitmq/rabbitmq.h"

#include <signal.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <tuple>

#include "service/rabbitmq/rabbitmq_client.h"
#include "service/server_launch.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;
constexpr const char* kRabbitmqServer = "/usr/lib/rabbitmq/bin/rabbitmq-server";
constexpr const char* kEpmd = "/usr/bin/epmd";
constexpr const char* kErlCall = "/usr/lib/erlang/bin/erl_call";  // Debian's erlang-base

// The broker's ports and files, all it needs to start again after a kill.
struct BrokerPlace {
  fs::path dir;
  ServerMarks marks;
  int epmd_port = 0;
  int dist_port = 0;
};

ServerCommand BrokerCommand(const BrokerPlace& place, const ServiceAddress& address, int port);
std::map<std::string, std::string> RabbitmqEnv(const fs::path& dir, const ServerMarks& marks,
                                               int epmd_port);

// The messages ready in every queue of the trial's vhost, one entry each ("QUEUE: ready message
// K"): the queues' names from the management API (current; only its counts are statistics), their
// counts from AMQP's passive queue.declare. Counted, never taken: basic.get and a requeue would be
// deliveries of the harness's own, in the state the kill meets.
Result<ServiceSnapshot> RabbitmqSnapshot(const ServiceAddress& address) {
  std::string answer;
  if (Status s =
          RabbitmqApi(address.admin_port, "GET",
                      "/api/queues/" + UrlSegment(address.database) + "?columns=name", "", &answer);
      !s) {
    return s.error();
  }
  nlohmann::json queues = nlohmann::json::parse(answer, nullptr, false);
  if (!queues.is_array()) return Error::Harness("rabbitmq: the queues' list is not a JSON array");
  ServiceSnapshot out;
  for (const auto& q : queues) {
    const std::string name = q.value("name", "");
    auto state = ReadRabbitmqQueue(address, name);
    if (!state) return state.error();
    for (int64_t k = 1; k <= state.value().ready; ++k)
      out.push_back({name + ": ready message " + std::to_string(k), -1});
  }
  return out;
}

class Rabbitmq : public RunningService {
 public:
  Rabbitmq(BrokerPlace place, std::unique_ptr<ServerProcess> epmd,
           std::unique_ptr<ServerProcess> server, ServiceAddress address)
      : place_(std::move(place)),
        epmd_(std::move(epmd)),
        server_(std::move(server)),
        address_(std::move(address)) {}

  Result<ServiceSnapshot> Snapshot() override { return RabbitmqSnapshot(address_); }

  // RabbitMQ 3.10 keeps a queue's record in mnesia. A queue.declare writes the durable and the
  // live table at once, which mnesia commits with its asym_trans protocol: the commit record
  // goes to the transaction log (LATEST.LOG) at once, but its "committed" decision is logged by
  // the process mnesia_recover, on a message of its own. RabbitMQ syncs the log after the
  // commit (mnesia_sync) without waiting for that message, so the decision can land in
  // disk_log's write cache after the sync, where it stays up to 2 s (disk_log's timer). A kill
  // -9 meanwhile leaves the commit without its decision; the restarted node presumes it aborted
  // and the durable queue is gone with its confirmed messages (docs/services.md, "RabbitMQ"). Here:
  // mnesia_recover has logged every decision it was sent (a call, answered after the casts before
  // it), then the log is synced: in the files, as after 2 s.
  Status Settle() override {
    for (const char* call : {"mnesia_recover sync []", "disk_log sync [latest_log]"}) {
      if (Status s = ErlCall(call); !s) return s;
    }
    return Ok();
  }

  // The VM and its helpers (erl_child_setup, inet_gethost: descendants in sessions of their
  // own); epmd stays, the node registers with it again. Durable queues and their persistent
  // messages come back from the node's folder; the rest is gone.
  Status KillAndRestart() override {
    server_->KillAll();
    auto server = StartOnPort("rabbitmq", BrokerCommand(place_, address_, address_.port), [&] {
      return RabbitmqAccepting(address_.port, address_.admin_port);
    });
    if (!server) return server.error();
    server_ = std::move(server.value());
    return Ok();
  }

  Status Freeze(bool stop) override {
    server_->SignalAll(stop ? SIGSTOP : SIGCONT);
    return Ok();
  }

  ~Rabbitmq() override {
    // Its messages are thrown away. Every process of the tree, as for a kill: the VM's helpers
    // (erl_child_setup, inet_gethost) run in sessions of their own, out of the group, and would
    // exit only once they noticed the VM gone, after the run at times.
    server_->KillAll();
    epmd_->Stop(SIGKILL, std::chrono::milliseconds(0));
    std::error_code ec;
    fs::remove_all(place_.dir, ec);
  }

  // A new vhost, kRabbitmqUser's; the last trial's goes first (its queues and connections with it).
  Result<ServiceAddress> Reset() override {
    const int api = address_.admin_port;
    if (!address_.database.empty()) {
      if (Status s = RabbitmqApi(api, "DELETE", "/api/vhosts/" + UrlSegment(address_.database));
          !s) {
        return Failed(s.error());
      }
    }
    address_.database = "killpoint-" + std::to_string(++trials_);
    const std::string vhost = UrlSegment(address_.database);
    if (Status s = RabbitmqApi(api, "PUT", "/api/vhosts/" + vhost); !s) return Failed(s.error());
    if (Status s = RabbitmqApi(api, "PUT", "/api/permissions/" + vhost + "/" + kRabbitmqUser,
                               R"({"configure":".*","write":".*","read":".*"})");
        !s) {
      return Failed(s.error());
    }
    return address_;
  }

 private:
  // `mfa` ("Module Function [Args]") applied on the node by erl_call, over its distribution port
  // (no epmd): an Error unless it answers `ok`.
  Status ErlCall(const std::string& mfa) {
    const fs::path log = place_.dir / "erl_call.log";
    std::error_code ec;
    fs::remove(log, ec);
    ServerCommand command{{kErlCall, "-address", "127.0.0.1:" + std::to_string(place_.dist_port),
                           "-timeout", "10", "-a", mfa},
                          RabbitmqEnv(place_.dir, place_.marks, place_.epmd_port),  // the cookie
                          log,
                          place_.marks.cgroup_procs_fd};
    Status ran = RunServerTool(command, std::chrono::seconds(15));
    std::ifstream in(log);
    std::string answer((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (ran && answer == "ok") return Ok();
    return Error::Harness("rabbitmq service: erl_call " + mfa + " on the broker answered '" +
                          answer + "'" + (ran ? "" : ": " + ran.error().message));
  }

  Error Failed(const Error& e) {
    return Error::Harness(
        "rabbitmq service: cannot make the trial's vhost: " + e.message +
        (server_->Running() ? "" : "; the broker is gone: " + server_->LogTail()));
  }

  BrokerPlace place_;
  std::unique_ptr<ServerProcess> epmd_;
  std::unique_ptr<ServerProcess> server_;
  ServiceAddress address_;
  int trials_ = 0;
};

// Its configuration (with its user's password), plugins and Erlang cookie (in its HOME), all in
// `dir`, readable by the server's user only: nothing from /etc.
Status WriteRabbitmqFiles(const fs::path& dir, int admin_port) {
  std::random_device random;
  std::string cookie = "KILLPOINT";
  for (int i = 0; i < 20; ++i) cookie += static_cast<char>('A' + random() % 26);
  const fs::perms rw = fs::perms::owner_read | fs::perms::owner_write;
  for (auto [file, text, mode] :
       {std::tuple<const char*, std::string, fs::perms>{
            "rabbitmq.conf",
            "management.tcp.ip = 127.0.0.1\nmanagement.tcp.port = " + std::to_string(admin_port) +
                "\n"
                // a full tmpfs must not block publishers silently
                "disk_free_limit.absolute = 1MB\n"
                // no guest/guest: the one user is made at the first start, with the password
                "default_user = " +
                kRabbitmqUser + "\ndefault_pass = " + ServerPassword() +
                "\ndefault_user_tags.administrator = true\n",
            rw},
        {"enabled_plugins", "[rabbitmq_management].\n", rw},
        {"rabbitmq-env.conf", "", rw},
        {".erlang.cookie", cookie, fs::perms::owner_read}}) {
    if (Status s = WriteServerFile(dir / file, text, mode); !s) return s;
  }
  return Ok();
}

std::map<std::string, std::string> RabbitmqEnv(const fs::path& dir, const ServerMarks& marks,
                                               int epmd_port) {
  auto env = ServerEnvironment(marks);
  env["HOME"] = dir.string();  // its .erlang.cookie
  env["ERL_EPMD_PORT"] = std::to_string(epmd_port);
  env["ERL_EPMD_ADDRESS"] = "127.0.0.1";
  return env;
}

// An epmd of the broker's own, in the foreground: a process the harness stops, not a daemon.
Result<std::unique_ptr<ServerProcess>> StartEpmd(const fs::path& dir, const ServerMarks& marks,
                                                 int& port) {
  return StartOnPickedPort(
      "epmd",
      [&](int p) {
        return ServerCommand{{kEpmd, "-port", std::to_string(p), "-address", "127.0.0.1"},
                             RabbitmqEnv(dir, marks, p),
                             dir / "epmd.log",
                             marks.cgroup_procs_fd};
      },
      LoopbackPortOpen, port);
}

ServerCommand BrokerCommand(const BrokerPlace& place, const ServiceAddress& address, int port) {
  const fs::path& dir = place.dir;
  auto env = RabbitmqEnv(dir, place.marks, place.epmd_port);
  for (auto [key, value] : std::map<std::string, std::string>{
           {"RABBITMQ_NODENAME", "killpoint-" + std::to_string(port) + "@localhost"},
           {"RABBITMQ_NODE_IP_ADDRESS", address.host},
           {"RABBITMQ_NODE_PORT", std::to_string(port)},
           {"RABBITMQ_DIST_PORT", std::to_string(place.dist_port)},
           {"RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS", "-kernel inet_dist_use_interface {127,0,0,1}"},
           {"RABBITMQ_MNESIA_BASE", (dir / "mnesia").string()},
           {"RABBITMQ_LOG_BASE", (dir / "log").string()},
           {"RABBITMQ_LOGS", "-"},  // to server.log
           {"RABBITMQ_CONFIG_FILE", (dir / "rabbitmq.conf").string()},
           {"RABBITMQ_ADVANCED_CONFIG_FILE", (dir / "advanced.config").string()},
           {"RABBITMQ_CONF_ENV_FILE", (dir / "rabbitmq-env.conf").string()},
           {"RABBITMQ_ENABLED_PLUGINS_FILE", (dir / "enabled_plugins").string()},
           {"RABBITMQ_PID_FILE", (dir / "rabbitmq.pid").string()},
           {"ERL_CRASH_DUMP", (dir / "erl_crash.dump").string()}}) {
    env[key] = value;
  }
  return ServerCommand{{kRabbitmqServer}, env, dir / "server.log", place.marks.cgroup_procs_fd};
}

Result<std::unique_ptr<ServerProcess>> StartBroker(const BrokerPlace& place,
                                                   ServiceAddress& address) {
  return StartOnPickedPort(
      "rabbitmq", [&](int port) { return BrokerCommand(place, address, port); },
      [&](int port) { return RabbitmqAccepting(port, address.admin_port); }, address.port);
}

}  // namespace

Result<std::unique_ptr<RunningService>> StartRabbitmq(const std::string& name, const fs::path& root,
                                                      const ServerMarks& marks, bool /*fast*/) {
  std::error_code ec;
  if (!fs::exists(kRabbitmqServer, ec) || !fs::exists(kEpmd, ec) || !fs::exists(kErlCall, ec)) {
    return Error::Harness(
        "a rabbitmq service needs Debian's RabbitMQ broker (/usr/lib/rabbitmq/bin/rabbitmq-server, "
        "epmd and erl_call), which is not installed: run scripts/setup.sh (package "
        "rabbitmq-server)");
  }
  auto failed = [&](const Error& e) {
    return Error::Harness("rabbitmq service " + name + ": " + e.message);
  };
  auto dir = MakeServerFolder(root, name);
  if (!dir) return failed(dir.error());
  ServiceAddress address{"rabbitmq", "127.0.0.1", 0, "", kRabbitmqUser, ServerPassword()};
  auto admin_port = PickLoopbackPort();
  auto dist_port = PickLoopbackPort();
  if (!admin_port) return failed(admin_port.error());
  if (!dist_port) return failed(dist_port.error());
  address.admin_port = admin_port.value();
  if (Status s = WriteRabbitmqFiles(dir.value(), address.admin_port); !s) return failed(s.error());
  int epmd_port = 0;
  auto epmd = StartEpmd(dir.value(), marks, epmd_port);
  if (!epmd) return failed(epmd.error());
  BrokerPlace place{dir.value(), marks, epmd_port, dist_port.value()};
  auto server = StartBroker(place, address);
  if (!server) return failed(server.error());
  return std::unique_ptr<RunningService>(new Rabbitmq(
      std::move(place), std::move(epmd.value()), std::move(server.value()), std::move(address)));
}

std::string RabbitmqUrl(const ServiceAddress& a) {
  return "amqp://" + a.user + ":" + a.password + UrlWhere(a) + UrlSegment(a.database);
}

void RabbitmqEnv(const ServiceAddress& a, ServiceEnvironment& env) { env["AMQP_URL"] = a.Url(); }

}  // namespace killpoint
