#include "scenario/service_kind.h"

#include <algorithm>

#include "scenario/net_point.h"

namespace killpoint {

namespace {

constexpr bool NamesUnique() {
  for (size_t i = 0; i < kServiceKinds.size(); ++i)
    for (size_t j = i + 1; j < kServiceKinds.size(); ++j)
      if (kServiceKinds[i].name == kServiceKinds[j].name) return false;
  return true;
}
static_assert(NamesUnique(), "two service kinds of one name");

}  // namespace

const ServiceKind* FindServiceKind(std::string_view name) {
  auto it = std::find_if(kServiceKinds.begin(), kServiceKinds.end(),
                         [&](const ServiceKind& k) { return k.name == name; });
  return it == kServiceKinds.end() ? nullptr : &*it;
}

std::string ServiceKindList() {
  std::string out;
  for (const ServiceKind& k : kServiceKinds) out += (out.empty() ? "" : ", ") + std::string(k.name);
  return out;
}

std::string_view CountedMoment(WireProtocol protocol) {
  switch (protocol) {
    case WireProtocol::kPostgres:
    case WireProtocol::kMysql:
      return kNetCommit;
    case WireProtocol::kRedis:
      return kNetSetNx;
    case WireProtocol::kAmqp:
      return {};
  }
  return {};
}

}  // namespace killpoint
