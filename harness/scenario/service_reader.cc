#include "scenario/service_reader.h"

#include <algorithm>

#include "scenario/service_kind.h"
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

const ServiceKind& CheckedKind(FieldReader& r, const std::string& kind) {
  if (const ServiceKind* k = FindServiceKind(kind)) return *k;
  std::vector<std::string> known;
  for (const ServiceKind& k : kServiceKinds) known.emplace_back(k.name);
  std::string near = ClosestName(kind, known);
  r.Fail("kind", "unknown service kind '" + kind + "'" +
                     (near.empty() ? "" : " (did you mean '" + near + "'?)") +
                     "; the kinds are: " + ServiceKindList());
}

// docs/services.md, "Server faults": durable (the default) or fast, for the kinds that have it.
std::string CheckedDurability(FieldReader& r, const ServiceKind& kind) {
  if (!r.Has("durability")) return kDurable;
  std::string d = r.String("durability");
  if (d != kDurable && d != kFast)
    r.Fail("durability", "unknown durability '" + d + "': durable or fast");
  if (d == kFast && !kind.has_fast) {
    r.Fail("durability",
           "a " + std::string(kind.name) + " service has no fast setting (only durable)");
  }
  return d;
}

// A sort of check as an error message names it, and the fields it reads.
struct CheckWords {
  std::string named;
  std::string fields;
};

CheckWords WordsOf(ServiceCheck check) {
  switch (check) {
    case ServiceCheck::kSql:
      return {"SQL checks", "\"sql\""};
    case ServiceCheck::kKeys:
      return {"checks on keys", "\"keys\""};
    case ServiceCheck::kQueue:
      return {"queue checks", "\"queue\" and \"messages\""};
  }
  return {};
}

// "postgres and mariadb": the kinds that answer `check`.
std::string KindsAnswering(ServiceCheck check) {
  std::vector<std::string> kinds;
  for (const ServiceKind& k : kServiceKinds)
    if (k.check == check) kinds.emplace_back(k.name);
  std::string out;
  for (size_t i = 0; i < kinds.size(); ++i)
    out += (i == 0 ? "" : i + 1 == kinds.size() ? " and " : ", ") + kinds[i];
  return out;
}

}  // namespace

std::map<std::string, ServiceSpec> ReadServices(FieldReader r, const nlohmann::json* services) {
  std::map<std::string, ServiceSpec> out;
  if (services == nullptr) return out;
  for (auto it = services->begin(); it != services->end(); ++it) {
    std::string name = CheckedServiceName(r, it.key());
    FieldReader s = r.Object(name);
    ServiceSpec spec;
    const ServiceKind& kind = CheckedKind(s, s.String("kind"));
    spec.kind = kind.name;
    spec.durability = CheckedDurability(s, kind);
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
    const ServiceKind* kind = FindServiceKind(it->second.kind);
    if (kind == nullptr) r.Fail(field, "'" + check.service + "' has no known kind");
    ServiceCheck asked = !check.queue.empty()        ? ServiceCheck::kQueue
                         : !check.redis.keys.empty() ? ServiceCheck::kKeys
                                                     : ServiceCheck::kSql;
    if (asked != kind->check) {
      const std::string name(kind->name);
      r.Fail(field, "'" + check.service + "' is a " + name + " service; " + WordsOf(asked).named +
                        " run on " + KindsAnswering(asked) + " services (a " + name +
                        " check reads " + WordsOf(kind->check).fields + ")");
    }
  }
}

}  // namespace killpoint
