// A scenario's services (scenario.h's `services`), started together for one worker of a run and
// stopped when it goes. ServiceEnv is what a job and the scenario's setup get to find them.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "scenario/scenario.h"
#include "service/server_pool.h"
#include "service/service.h"
#include "service/tcp_proxy.h"
#include "util/result.h"

namespace killpoint {

class ServiceSet {
 public:
  // Starts every service of `specs`, their files in `root` (the run's sandbox root), each with a
  // thread of its own (server_pool.h's HostedServer). With a `pool`, borrows them from it
  // instead, and gives them back when the set goes (but one whose restart after a server kill
  // failed). On an error the ones started are stopped (or given back). Each server carries the
  // run's marks (ServerMarks: the set's server tag, the run's cgroup), so that a
  // SIGKILLed harness takes it along.
  static Result<std::unique_ptr<ServiceSet>> Start(const std::map<std::string, ServiceSpec>& specs,
                                                   const std::filesystem::path& root,
                                                   ServerPool* pool = nullptr);
  ServiceSet() = default;
  ~ServiceSet();
  ServiceSet(const ServiceSet&) = delete;
  ServiceSet& operator=(const ServiceSet&) = delete;

  // A clean state in every service for the next trial; where the harness finds each (its
  // checks). Every fault proxy is disarmed and its connections cut.
  Result<ServiceAddresses> Reset();

  // RunningService::Settle of every service, each from its server's own thread.
  Status Settle();

  // Where the job finds each service: `servers` (Reset's) with the host and port of the
  // service's fault proxy (docs/services.md, "Faults between the job and its services").
  ServiceAddresses ThroughProxies(const ServiceAddresses& servers) const;
  // Arms the proxy of `service` for the next attempt (TcpProxy::Arm); DisarmNet: all of them.
  void ArmNet(const std::string& service, const ProxyFault& fault, ProxyFired on_fired);
  void DisarmNet();
  // Every command a job sends to a service goes by `hook` (TcpProxy::SetCommandHook), as its
  // point `net:<service>:<verb>` (docs/services.md, "Command points"), with a ticket that names
  // its proxy too, for ReleaseCommand; null: none.
  using PointHook =
      std::function<CommandStep(const std::string& point, bool after, uint64_t ticket)>;
  void SetCommandHook(PointHook hook);
  // TcpProxy::Release of the command held with `ticket` (the hook's). Thread-safe once the
  // proxies are started (Reset).
  void ReleaseCommand(uint64_t ticket, CommandStep step);
  // Whether `connection`, as a held hit names it, is such a ticket (a control channel's
  // connection numbers stay far below).
  static bool IsCommandTicket(uint64_t connection) { return connection >> 48 != 0; }

  // Server faults (docs/services.md, "Server faults"). KillAndRestart reads the trial's data of
  // `service`, kills every process of its server, starts it again on the same data and port
  // (from the server's own thread: server_pool.h), and reads the data again. An Error when
  // the server did not come back; a snapshot that could not be read is the outcome's `error`.
  struct KillOutcome {
    size_t before = 0;                 // rows or keys before the kill
    std::vector<std::string> missing;  // of those, what the restarted server lacks
    int64_t restart_ms = 0;            // from the kill to the server answering again
    std::string error;                 // a snapshot that could not be read: nothing compared
  };
  Result<KillOutcome> KillAndRestart(const std::string& service);
  // SIGSTOPs (`stop`) or SIGCONTs every process of the server of `service`.
  Status Freeze(const std::string& service, bool stop);

 private:
  // The proxy in front of `name`, (re)started when the server's port is new to it.
  Status ProxyTo(const std::string& name, const ServiceAddress& server);
  // command_hook_ on `proxy`, the proxy of the `index`-th of services_ (a ticket's top bits).
  void HookProxy(const std::string& name, size_t index, TcpProxy& proxy) const;

  struct Member {
    ServiceSpec spec;
    HostedServer server;
    bool broken = false;  // its restart after a server kill failed: not given back
  };
  std::filesystem::path root_;
  ServerPool* pool_ = nullptr;
  std::map<std::string, Member> services_;
  // After services_: each proxy's thread ends before the servers stop.
  std::map<std::string, std::unique_ptr<TcpProxy>> proxies_;
  std::map<std::string, int> proxied_ports_;  // the server port each proxy relays to
  PointHook command_hook_;                    // given to each proxy, those started later too
};

// The environment that tells a job where its services are, and the password they ask
// (docs/services.md): for each service NAME, KILLPOINT_SERVICE_<NAME>_URL; for the scenario's one
// postgres service, also PGHOST, PGPORT, PGDATABASE, PGUSER and PGPASSWORD; for its one mariadb
// service, MYSQL_HOST, MYSQL_TCP_PORT, MYSQL_PORT, MYSQL_DATABASE, MYSQL_USER and MYSQL_PWD (with
// two of a kind, only the named variables: which one the defaults point at would be a guess);
// DATABASE_URL for the one postgres service, or else the one mariadb service; for its one redis
// service, REDIS_URL and REDISCLI_AUTH; AMQP_URL for the one rabbitmq service.
std::map<std::string, std::string> ServiceEnv(const ServiceAddresses& addresses);

}  // namespace killpoint
