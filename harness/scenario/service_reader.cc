#include "scenario/service_reader.h"

#include <algorithm>

#include "util/closest_name.h"

namespace killpoint {
namespace {

constexpr size_t kMaxServiceName = 32;

bool IsNameChar(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; }

std::string CheckedServiceName(FieldReader& r, const std::string& name) {
  if (name.empty() || name.size() > kMaxServiceName ||
      !std::all_of(name.begin(), name.end(), IsNameChar) || !(name[0] >= 'a' && name[0] <= 'z')) {
    r.Fail(name,
           "a service's name is a lower-case letter, then lower-case letters, digits and _ (at "
           "most 32)");
  }
  return name;
}

template <size_t N>
bool Among(const std::array<std::string_view, N>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string KindList() {
  std::string out;
  for (std::string_view k : kServiceKinds) out += (out.empty() ? "" : ", ") + std::string(k);
  return out;
}

std::string CheckedKind(FieldReader& r, const std::string& kind) {
  if (Among(kServiceKinds, kind)) return kind;
  std::vector<std::string> known(kServiceKinds.begin(), kServiceKinds.end());
  std::string near = ClosestName(kind, known);
  r.Fail("kind", "unknown service kind '" + kind + "'" +
                     (near.empty() ? "" : " (did you mean '" + near + "'?)") +
                     "; the kinds are: " + KindList());
}

// docs/services.md, "Server faults": durable (the default) or fast; rabbitmq has no fast form.
std::string CheckedDurability(FieldReader& r, const std::string& kind) {
  if (!r.Has("durability")) return kDurable;
  std::string d = r.String("durability");
  if (d != kDurable && d != kFast)
    r.Fail("durability", "unknown durability '" + d + "': durable or fast");
  if (d == kFast && kind == "rabbitmq")
    r.Fail("durability", "a rabbitmq service has no fast setting (only durable)");
  return d;
}

}  // namespace

std::map<std::string, ServiceSpec> ReadServices(FieldReader r, const nlohmann::json* services) {
  std::map<std::string, ServiceSpec> out;
  if (services == nullptr) return out;
  for (auto it = services->begin(); it != services->end(); ++it) {
    std::string name = CheckedServiceName(r, it.key());
    FieldReader s = r.Object(name);
    ServiceSpec spec;
    spec.kind = CheckedKind(s, s.String("kind"));
    spec.durability = CheckedDurability(s, spec.kind);
    s.Finish();
    out[name] = spec;
  }
  r.Finish();
  return out;
}

void CheckServiceRefs(FieldReader& r, const Scenario& s) {
  for (const auto& [name, check] : s.checks) {
    if (check.service.empty()) continue;
    const std::string field = "checks." + name + ".service";
    auto it = s.services.find(check.service);
    if (it == s.services.end()) {
      r.Fail(field, "names no service of the scenario: '" + check.service + "'");
    }
    const std::string& kind = it->second.kind;
    const bool keys = !check.redis.keys.empty();
    const bool queue = !check.queue.empty();
    const bool sql_server = kind == "postgres" || kind == "mariadb";
    if (queue && kind != "rabbitmq") {
      r.Fail(field, "'" + check.service + "' is a " + kind +
                        " service; queue checks run on rabbitmq services");
    }
    if (!queue && kind == "rabbitmq") {
      r.Fail(field,
             "'" + check.service +
                 "' is a rabbitmq service: its checks read a queue (queue, messages), not sql");
    }
    if (keys && kind != "redis") {
      r.Fail(field, "'" + check.service + "' is a " + it->second.kind +
                        " service; checks on keys run on redis services");
    }
    if (!keys && !queue && !sql_server && kind != "rabbitmq") {
      r.Fail(field, "'" + check.service + "' is a " + it->second.kind +
                        " service; SQL checks run on postgres and mariadb services" +
                        (it->second.kind == "redis" ? " (a redis check reads \"keys\")" : ""));
    }
  }
}

}  // namespace killpoint
