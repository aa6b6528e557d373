// A real server a scenario's job talks to (docs/services.md): started once per worker from
// Debian's packages, given a clean state for every trial, stopped with the worker, and dead with
// the harness however it ends. One kind per folder (service/postgres/); service_set.h starts a
// scenario's services and hands out their addresses.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "service/snapshot.h"
#include "util/result.h"

namespace killpoint {

// Where a trial finds a service, and as whom it logs in.
struct ServiceAddress {
  std::string kind;  // a name of scenario/service_kind.h's kServiceKinds
  std::string host;  // a loopback address
  int port = 0;
  std::string database;  // the trial's own, clean at its start (redis: the index, "0")
  std::string user;      // redis: none, its default user
  // server_launch.h's ServerPassword: no server of the harness's lets a client in without it.
  std::string password;

  // postgresql://USER:PASSWORD@HOST:PORT/DATABASE for a postgres service (mysql:// for a
  // mariadb one), redis://:PASSWORD@HOST:PORT/DATABASE for a redis one,
  // amqp://USER:PASSWORD@HOST:PORT/VHOST for a rabbitmq one (the vhost, `database`,
  // URL-encoded). The password is letters and digits: nothing to encode.
  std::string Url() const;
  int admin_port = 0;  // a rabbitmq service's management API (HTTP), on `host`
  bool operator==(const ServiceAddress&) const = default;
};

using ServiceAddresses = std::map<std::string, ServiceAddress>;  // by the scenario's name

// What marks a server process as this run's, for the orphan guard's cleanups: environment
// entries (the process tag it sweeps, proc/process_tag.h) and the run's cgroup.procs (-1: none;
// proc/job_cgroup.h), which the server joins before it execs. ServiceSet::Start gives its
// servers the run's; a server started without (bench/service_bench.cc) has none.
struct ServerMarks {
  std::map<std::string, std::string> env;
  int cgroup_procs_fd = -1;
};

class RunningService {
 public:
  virtual ~RunningService() = default;  // stops the server and waits for it
  // A clean state for the next trial: what the last one left is gone. The previous trial's
  // state lives until then, for its checks.
  virtual Result<ServiceAddress> Reset() = 0;

  // What the trial's setup left on the server is in its files when this returns, so that a
  // server kill during the trial meets the state the setup stands for (messages published on an
  // earlier day), not a broker still finishing the setup's writes (docs/services.md,
  // "RabbitMQ"). Only rabbitmq has anything to do: its queue declarations reach the disk up to
  // 2 s after the declare-ok.
  virtual Status Settle() { return Ok(); }

  // Server faults (docs/services.md, "Server faults"); a kind without them answers an Error.
  // What the trial's data holds now (service/snapshot.h).
  virtual Result<ServiceSnapshot> Snapshot() { return Unsupported(); }
  // SIGKILLs every process of the server, starts it again on the same data folder and port, and
  // waits until it answers. Call it from a thread that outlives the server, as for the start.
  virtual Status KillAndRestart() { return Unsupported(); }
  // SIGSTOPs (`stop`) or SIGCONTs every process of the server.
  virtual Status Freeze(bool stop) {
    (void)stop;
    return Unsupported();
  }

 private:
  static Error Unsupported() { return Error::BadInput("this kind has no server faults"); }
};

// The rows of an SQL query, as the harness's clients (pg_client.h, mysql_client.h) read them.
struct SqlRows {
  std::vector<std::string> columns;
  std::vector<std::vector<std::optional<std::string>>> rows;  // nullopt: NULL
};

using ServiceEnvironment = std::map<std::string, std::string>;

// The harness's side of a service kind (docs/services.md, "Adding a kind"), a constant in the
// kind's header (kPostgresKind in postgres.h) listed once in service_kinds.h.
struct ServiceKindImpl {
  std::string_view name;  // its line's in scenario/service_kind.h
  // Starts a server with its files in a new folder inside `root`; `fast`: the settings of
  // durability "fast" (docs/services.md, "Server faults").
  Result<std::unique_ptr<RunningService>> (*start)(const std::string& name,
                                                   const std::filesystem::path& root,
                                                   const ServerMarks& marks, bool fast);
  // Its URL, with the password: ServiceAddress::Url.
  std::string (*url)(const ServiceAddress& address);
  // The variables its clients read (PGHOST, MYSQL_PWD, REDIS_URL), set when a run has one
  // service of the kind.
  void (*env)(const ServiceAddress& address, ServiceEnvironment& env);
  // A read-only SQL query, for a kind that answers SQL checks; null for the others.
  Result<SqlRows> (*read_only)(const ServiceAddress& address, const std::string& sql) = nullptr;
};

// "@HOST:PORT/": the part of a URL after its credentials, before its database.
std::string UrlWhere(const ServiceAddress& address);

}  // namespace killpoint
