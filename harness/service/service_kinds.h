// The harness's side of every service kind, one line a kind (docs/services.md, "Adding a kind"):
// its server, its clients' URL and environment, its read-only query. The kinds and what a
// scenario may ask of them are scenario/service_kind.h's table; the static_assert below holds the
// two to the same names in the same order.
#pragma once

#include <array>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "scenario/service_kind.h"
#include "service/mariadb/mariadb.h"
#include "service/postgres/postgres.h"
#include "service/rabbitmq/rabbitmq.h"
#include "service/redis/redis.h"
#include "service/service.h"

namespace killpoint {

inline constexpr std::array kServiceKindImpls{kPostgresKind, kMariadbKind, kRedisKind,
                                              kRabbitmqKind};

namespace service_kinds_detail {
constexpr bool SameKinds() {
  if (kServiceKindImpls.size() != kServiceKinds.size()) return false;
  for (size_t i = 0; i < kServiceKinds.size(); ++i) {
    const ServiceKindImpl& impl = kServiceKindImpls[i];
    if (impl.name != kServiceKinds[i].name || impl.start == nullptr || impl.url == nullptr ||
        impl.env == nullptr ||
        (impl.read_only != nullptr) != (kServiceKinds[i].check == ServiceCheck::kSql))
      return false;
  }
  return true;
}
}  // namespace service_kinds_detail
static_assert(service_kinds_detail::SameKinds(),
              "kServiceKindImpls: one line a kind of scenario/service_kind.h, in its order, with "
              "a start, a URL, an environment, and a read-only query for an SQL kind");

// The harness's side of `kind`; null for no kind of that name.
const ServiceKindImpl* FindServiceKindImpl(std::string_view kind);

// Starts a server of `kind` (its line's start); a bad-input error for no kind of that name.
Result<std::unique_ptr<RunningService>> StartService(const std::string& name,
                                                     const std::string& kind,
                                                     const std::filesystem::path& root,
                                                     const ServerMarks& marks, bool fast = false);

}  // namespace killpoint
