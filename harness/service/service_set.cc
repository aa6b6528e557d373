#include "service/service_set.h"

#include <algorithm>
#include <cctype>

#include "service/postgres.h"
#include "service/redis.h"

namespace killpoint {

std::string ServiceAddress::Url() const {
  if (kind == "redis") return "redis://" + host + ":" + std::to_string(port) + "/" + database;
  return "postgresql://" + user + "@" + host + ":" + std::to_string(port) + "/" + database;
}

// The kinds, one file each: a new kind is a line here and its file.
Result<std::unique_ptr<RunningService>> StartService(const std::string& name,
                                                     const std::string& kind,
                                                     const std::filesystem::path& root,
                                                     const ServerMarks& marks) {
  if (kind == "postgres") return StartPostgres(name, root, marks);
  if (kind == "redis") return StartRedis(name, root, marks);
  return Error::BadInput("service " + name + ": no service kind '" + kind + "'");
}

Result<std::unique_ptr<ServiceSet>> ServiceSet::Start(
    const std::map<std::string, ServiceSpec>& specs, const std::filesystem::path& root,
    const ServerMarks& marks) {
  auto set = std::make_unique<ServiceSet>();
  for (const auto& [name, spec] : specs) {
    auto service = StartService(name, spec.kind, root, marks);
    if (!service) return service.error();  // `set` stops the ones started
    set->services_[name] = std::move(service.value());
  }
  return set;
}

Result<ServiceAddresses> ServiceSet::Reset() {
  ServiceAddresses out;
  for (auto& [name, service] : services_) {
    auto address = service->Reset();
    if (!address) return address.error();
    out[name] = address.value();
  }
  return out;
}

std::map<std::string, std::string> ServiceEnv(const ServiceAddresses& addresses) {
  std::map<std::string, std::string> env;
  int postgres = 0, redis = 0;
  for (const auto& [name, a] : addresses) {
    std::string upper = name;
    std::transform(upper.begin(), upper.end(), upper.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    env["KILLPOINT_SERVICE_" + upper + "_URL"] = a.Url();
    if (a.kind == "postgres") ++postgres;
    if (a.kind == "redis") ++redis;
  }
  for (const auto& [name, a] : addresses) {
    if (a.kind != "postgres" || postgres != 1) continue;
    env["PGHOST"] = a.host;
    env["PGPORT"] = std::to_string(a.port);
    env["PGDATABASE"] = a.database;
    env["PGUSER"] = a.user;
    env["DATABASE_URL"] = a.Url();
  }
  for (const auto& [name, a] : addresses) {
    if (a.kind == "redis" && redis == 1) env["REDIS_URL"] = a.Url();
  }
  return env;
}

}  // namespace killpoint
