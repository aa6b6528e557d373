// The service kinds (docs/services.md, "Adding a kind"): what a scenario may ask of each, one
// line a kind. The harness's side of a kind, its server, client and framing, is the line of the
// same name in service/service_kinds.h, which a static_assert holds to this table.
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace killpoint {

// What a kind's checks read: rows of an SQL query, keys, or a queue's messages.
enum class ServiceCheck { kSql, kKeys, kQueue };

// The protocol its clients speak, which the fault proxy frames (service/client_framing.h).
enum class WireProtocol { kPostgres, kMysql, kRedis, kAmqp };

struct ServiceKind {
  std::string_view name;  // a scenario's services.NAME.kind
  WireProtocol protocol;
  ServiceCheck check;
  bool has_fast = true;  // durability "fast" besides "durable"
};

inline constexpr std::array kServiceKinds{
    ServiceKind{"postgres", WireProtocol::kPostgres, ServiceCheck::kSql},
    ServiceKind{"mariadb", WireProtocol::kMysql, ServiceCheck::kSql},
    ServiceKind{"redis", WireProtocol::kRedis, ServiceCheck::kKeys},
    ServiceKind{"rabbitmq", WireProtocol::kAmqp, ServiceCheck::kQueue, false},
};

// The kind named `name`; null for none.
const ServiceKind* FindServiceKind(std::string_view name);

// "postgres, mariadb, redis, rabbitmq".
std::string ServiceKindList();

// The moment of a network fault point that the protocol's framing counts: kNetCommit for the SQL
// protocols, kNetSetNx for Redis's; empty for AMQP, whose points are its verbs.
std::string_view CountedMoment(WireProtocol protocol);

}  // namespace killpoint
