#include "service/service_set.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <iterator>

#include "proc/job_cgroup.h"
#include "proc/process_tag.h"
#include "service/service_kinds.h"

namespace killpoint {

std::string UrlWhere(const ServiceAddress& address) {
  return "@" + address.host + ":" + std::to_string(address.port) + "/";
}

std::string ServiceAddress::Url() const {
  const ServiceKindImpl* impl = FindServiceKindImpl(kind);
  return impl == nullptr ? "" : impl->url(*this);
}

const ServiceKindImpl* FindServiceKindImpl(std::string_view kind) {
  for (const ServiceKindImpl& impl : kServiceKindImpls)
    if (impl.name == kind) return &impl;
  return nullptr;
}

Result<std::unique_ptr<RunningService>> StartService(const std::string& name,
                                                     const std::string& kind,
                                                     const std::filesystem::path& root,
                                                     const ServerMarks& marks, bool fast) {
  const ServiceKindImpl* impl = FindServiceKindImpl(kind);
  if (impl == nullptr)
    return Error::BadInput("service " + name + ": no service kind '" + kind + "'");
  return impl->start(name, root, marks, fast);
}

Result<std::unique_ptr<ServiceSet>> ServiceSet::Start(
    const std::map<std::string, ServiceSpec>& specs, const std::filesystem::path& root,
    ServerPool* pool) {
  // The orphan guard's tag and the run's cgroup: a SIGKILLed harness takes its servers along.
  const ServerMarks marks{{{kProcessTagVariable, NewServerTag()}}, JobCgroupProcsFd()};
  auto set = std::make_unique<ServiceSet>();
  set->root_ = root;
  set->pool_ = pool;
  for (const auto& [name, spec] : specs) {
    const bool fast = spec.durability == kFast;
    auto server = pool ? pool->Borrow(name, spec.kind, root, marks, fast)
                       : HostedServer::Start(name, spec.kind, root, marks, fast);
    if (!server) return server.error();  // `set` stops (or gives back) the ones started
    set->services_[name] = Member{spec, std::move(server.value())};
  }
  return set;
}

ServiceSet::~ServiceSet() {
  proxies_.clear();  // their threads end before the servers stop or go back
  for (auto& [name, m] : services_) {
    if (pool_ && !m.broken) {
      pool_->Return(m.spec.kind, root_, m.spec.durability == kFast, std::move(m.server));
    }
  }
}

Result<ServiceAddresses> ServiceSet::Reset() {
  ServiceAddresses out;
  for (auto& [name, m] : services_) {
    auto address = m.server.service->Reset();
    if (!address) return address.error();
    out[name] = address.value();
    if (Status s = ProxyTo(name, address.value()); !s) return s.error();
  }
  return out;
}

Status ServiceSet::Settle() {
  for (auto& [name, m] : services_) {
    Status settled = Ok();
    RunningService& service =
        *m.server.service;  // a lambda captures no structured binding in clang 14
    m.server.thread->Run([&] { settled = service.Settle(); });
    if (!settled) return Error::Harness("service " + name + ": " + settled.error().message);
  }
  return Ok();
}

Status ServiceSet::ProxyTo(const std::string& name, const ServiceAddress& server) {
  auto& proxy = proxies_[name];
  if (proxy && proxied_ports_[name] == server.port) {
    proxy->Disarm();
    proxy->CutAll();  // a killed job's connection ends with its trial
    return Ok();
  }
  const ServiceKind* kind = FindServiceKind(server.kind);
  if (kind == nullptr) return Error::Harness("no service kind '" + server.kind + "'");
  auto started = TcpProxy::Start(server.host, server.port, kind->protocol);
  if (!started) return started.error();
  proxy = std::move(started.value());
  proxied_ports_[name] = server.port;
  HookProxy(name, size_t(std::distance(services_.begin(), services_.find(name))), *proxy);
  return Ok();
}

namespace {
constexpr int kTicketShift = 48;  // a proxy's index above, its own ticket below (IsCommandTicket)
}  // namespace

void ServiceSet::HookProxy(const std::string& name, size_t index, TcpProxy& proxy) const {
  if (!command_hook_) return proxy.SetCommandHook(nullptr);
  uint64_t top = uint64_t(index + 1) << kTicketShift;
  proxy.SetCommandHook(
      [name, top, hook = command_hook_](const std::string& verb, bool after, uint64_t ticket) {
        return hook(NetCommandPoint(name, verb), after, ticket == 0 ? 0 : top | ticket);
      });
}

void ServiceSet::SetCommandHook(PointHook hook) {
  command_hook_ = std::move(hook);
  for (auto& [name, proxy] : proxies_)
    HookProxy(name, size_t(std::distance(services_.begin(), services_.find(name))), *proxy);
}

void ServiceSet::ReleaseCommand(uint64_t ticket, CommandStep step) {
  uint64_t index = ticket >> kTicketShift;  // 1 + the service's place in services_
  if (index == 0 || index > services_.size()) return;
  auto service = std::next(services_.begin(), static_cast<std::ptrdiff_t>(index - 1));
  auto proxy = proxies_.find(service->first);
  if (proxy != proxies_.end())
    proxy->second->Release(ticket & ((uint64_t(1) << kTicketShift) - 1), step);
}

ServiceAddresses ServiceSet::ThroughProxies(const ServiceAddresses& servers) const {
  ServiceAddresses out = servers;
  for (auto& [name, a] : out) {
    auto it = proxies_.find(name);
    if (it == proxies_.end()) continue;
    a.host = "127.0.0.1";
    a.port = it->second->port();
  }
  return out;
}

void ServiceSet::ArmNet(const std::string& service, const ProxyFault& fault, ProxyFired on_fired) {
  auto it = proxies_.find(service);
  if (it != proxies_.end()) it->second->Arm(fault, std::move(on_fired));
}

void ServiceSet::DisarmNet() {
  for (auto& [name, proxy] : proxies_) proxy->Disarm();
}

Result<ServiceSet::KillOutcome> ServiceSet::KillAndRestart(const std::string& service) {
  auto it = services_.find(service);
  if (it == services_.end()) return Error::Harness("no service " + service);
  RunningService& s = *it->second.server.service;
  KillOutcome out;
  auto read = std::chrono::steady_clock::now();
  auto before = s.Snapshot();
  auto killed = std::chrono::steady_clock::now();
  Status restarted = Ok();
  it->second.server.thread->Run([&] { restarted = s.KillAndRestart(); });
  if (!restarted) {
    it->second.broken = true;
    return Error::Harness("service " + service + ": " + restarted.error().message);
  }
  out.restart_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::steady_clock::now() - killed)
                       .count();
  auto after = s.Snapshot();
  if (!before || !after) {
    out.error = (before ? after.error() : before.error()).message;
    return out;
  }
  out.before = before.value().size();
  // A key whose time to live ran out between the two reads expired on its own.
  int64_t between =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - read)
          .count();
  out.missing = MissingAfter(before.value(), after.value(), between);
  return out;
}

Status ServiceSet::Freeze(const std::string& service, bool stop) {
  auto it = services_.find(service);
  if (it == services_.end()) return Error::Harness("no service " + service);
  return it->second.server.service->Freeze(stop);
}

std::map<std::string, std::string> ServiceEnv(const ServiceAddresses& addresses) {
  std::map<std::string, std::string> env;
  std::map<std::string, int> of_kind;
  for (const auto& [name, a] : addresses) {
    std::string upper = name;
    std::transform(upper.begin(), upper.end(), upper.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    env["KILLPOINT_SERVICE_" + upper + "_URL"] = a.Url();
    ++of_kind[a.kind];
  }
  for (const auto& [name, a] : addresses) {
    const ServiceKindImpl* impl = FindServiceKindImpl(a.kind);
    if (impl != nullptr && of_kind[a.kind] == 1) impl->env(a, env);
  }
  // DATABASE_URL: the one server of the first SQL kind in scenario/service_kind.h's order that a
  // run has one of (postgres before mariadb).
  for (const ServiceKind& kind : kServiceKinds) {
    if (kind.check != ServiceCheck::kSql || of_kind[std::string(kind.name)] != 1) continue;
    for (const auto& [name, a] : addresses)
      if (a.kind == kind.name) env["DATABASE_URL"] = a.Url();
    break;
  }
  return env;
}

}  // namespace killpoint
