#include "service/redis/redis.h"

#include <signal.h>

#include <algorithm>
#include <optional>

#include "service/redis/redis_client.h"
#include "service/server_launch.h"
#include "service/single_server.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;
// How the server ends with the service: SIGTERM; it has nothing to save and exits at once.
const ServerStop kRedisStop{SIGTERM};
constexpr const char* kRedisConfig = "redis.conf";

ServerCommand RedisServerCommand(const fs::path& dir, const ServerMarks& marks, int port,
                                 bool fast);

// A value as text: a string as it is, a list in order, a set's or hash's members sorted.
Result<std::string> RedisValueText(RedisConnection& c, const std::string& type,
                                   const std::string& key) {
  std::vector<std::string> argv;
  bool sorted = true;
  if (type == "string") {
    argv = {"GET", key};
  } else if (type == "list") {
    argv = {"LRANGE", key, "0", "-1"};
    sorted = false;
  } else if (type == "set") {
    argv = {"SMEMBERS", key};
  } else if (type == "hash") {
    argv = {"HGETALL", key};
    sorted = false;  // field, value pairs: HGETALL's order is the hash's, stable for one content
  } else if (type == "zset") {
    argv = {"ZRANGE", key, "0", "-1", "WITHSCORES"};
    sorted = false;
  } else {
    return std::string("(" + type + ")");
  }
  auto r = c.Command(argv);
  if (!r) return r.error();
  if (r.value().type != RedisReply::Type::kArray) return r.value().text;
  std::vector<std::string> parts;
  for (const auto& e : r.value().elements) parts.push_back(e.text);
  if (sorted) std::sort(parts.begin(), parts.end());
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ",") + p;
  return "[" + out + "]";
}

// Every key of database 0, as "TYPE KEY = VALUE", with its time to live.
Result<ServiceSnapshot> RedisSnapshot(RedisConnection& c) {
  auto keys = c.Command({"KEYS", "*"});
  if (!keys) return keys.error();
  ServiceSnapshot out;
  for (const auto& k : keys.value().elements) {
    auto type = c.Command({"TYPE", k.text});
    auto ttl = c.Command({"PTTL", k.text});
    if (!type || !ttl) return (!type ? type : ttl).error();
    if (type.value().text == "none") continue;  // expired meanwhile
    auto value = RedisValueText(c, type.value().text, k.text);
    if (!value) return value.error();
    out.push_back({type.value().text + " " + k.text + " = " + value.value(),
                   ttl.value().integer >= 0 ? ttl.value().integer : -1});
  }
  return out;
}

class Redis : public SingleServer<RedisConnection> {
 public:
  using SingleServer::SingleServer;

  Result<ServiceSnapshot> Snapshot() override {
    auto c = RedisConnection::Open(address_, 5000);
    if (!c) return c.error();
    return RedisSnapshot(c.value());
  }

  Result<ServiceAddress> Reset() override {
    // Synchronous (not ASYNC): the next trial must find nothing. Every database, not only 0:
    // a job may SELECT another.
    if (auto r = admin_->Command({"FLUSHALL", "SYNC"}); !r) {
      return ResetFailed("empty the server for the trial", r.error());
    }
    return address_;
  }

 private:
  // Durable, it reads its append-only file again on the way up; fast, it starts empty.
  ServerCommand Command() const override {
    return RedisServerCommand(dir_, marks_, address_.port, fast_);
  }
  bool Accepting() const override { return RedisAccepting(address_); }
  Result<RedisConnection> OpenAdmin() const override { return RedisConnection::Open(address_); }
};

// Its configuration file (kRedisConfig, in `dir`) holds only the password (requirepass: the
// default user's), out of the command line, which every user of the machine can read; every
// other setting is on the command line. `--save ""`: no RDB snapshot. Durable: an append-only file,
// each write fsync'ed before its answer (`--appendfsync always`); fast: none, the keys live in the
// server's memory only (docs/services.md, "Server faults").
ServerCommand RedisServerCommand(const fs::path& dir, const ServerMarks& marks, int port,
                                 bool fast) {
  std::vector<std::string> argv = {kRedisServer,
                                   (dir / kRedisConfig).string(),
                                   "--bind",
                                   "127.0.0.1",
                                   "--port",
                                   std::to_string(port),
                                   "--dir",
                                   dir.string(),
                                   "--save",
                                   "",
                                   "--daemonize",
                                   "no",
                                   "--logfile",
                                   "",
                                   "--protected-mode",
                                   "yes"};
  for (const char* o :
       fast ? std::vector<const char*>{"--appendonly", "no"}
            : std::vector<const char*>{"--appendonly", "yes", "--appendfsync", "always"}) {
    argv.push_back(o);
  }
  return {argv, ServerEnvironment(marks), dir / "server.log", marks.cgroup_procs_fd};
}

Result<std::unique_ptr<ServerProcess>> StartRedisOn(const fs::path& dir, const ServerMarks& marks,
                                                    ServiceAddress& address, bool fast) {
  return StartOnPickedPort(
      "redis-server", [&](int port) { return RedisServerCommand(dir, marks, port, fast); },
      [&](int port) {
        ServiceAddress a = address;
        a.port = port;
        return RedisAccepting(a);
      },
      address.port);
}

}  // namespace

Result<std::unique_ptr<RunningService>> StartRedis(const std::string& name, const fs::path& root,
                                                   const ServerMarks& marks, bool fast) {
  if (!fs::exists(kRedisServer)) {
    return Error::Harness("a redis service needs Debian's redis-server (" +
                          std::string(kRedisServer) +
                          "), which is not installed: run scripts/setup.sh (package redis-server)");
  }
  auto dir = MakeServerFolder(root, name);
  if (!dir) return dir.error();
  if (Status s =
          WriteServerFile(dir.value() / kRedisConfig, "requirepass " + ServerPassword() + "\n");
      !s) {
    return Error::Harness("redis service " + name + ": " + s.error().message);
  }
  ServiceAddress address{"redis", "127.0.0.1", 0, kRedisTrialDatabase, "", ServerPassword()};
  auto server = StartRedisOn(dir.value(), marks, address, fast);
  if (!server) return Error::Harness("redis service " + name + ": " + server.error().message);
  auto admin = RedisConnection::Open(address);
  if (!admin) return Error::Harness("redis service " + name + ": " + admin.error().message);
  return std::unique_ptr<RunningService>(
      new Redis({"redis", dir.value(), std::move(server.value()), address, std::move(admin.value()),
                 marks, fast, kRedisStop}));
}

std::string RedisUrl(const ServiceAddress& a) {
  return "redis://:" + a.password + UrlWhere(a) + a.database;
}

void RedisEnv(const ServiceAddress& a, ServiceEnvironment& env) {
  env["REDIS_URL"] = a.Url();
  env["REDISCLI_AUTH"] = a.password;  // read by redis-cli
}

}  // namespace killpoint
