// What the fault proxy (service/tcp_proxy.h) reads of a client's bytes to count a protocol's
// points (docs/services.md, "Faults between the job and its services"): one parser per
// connection, fed the bytes in the order they come, which returns where each counted command
// ends. Three framings: PostgreSQL's (COMMITs, service/pg_framing.h), MySQL's client protocol
// (COMMITs, service/mysql_framing.h) and Redis's RESP2 (SET ... NX, service/redis_framing.h).
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

namespace killpoint {

class ClientFraming {
 public:
  virtual ~ClientFraming() = default;
  // Feeds the next bytes the client sent; returns, for each counted command that ends inside
  // them, the offset one past its last byte. After bytes it cannot read (broken()), it reads
  // nothing more: the proxy then forwards without counting.
  virtual std::vector<size_t> Feed(std::string_view bytes) = 0;
  virtual bool broken() const = 0;
};

enum class Framing { kNone, kPostgres, kMysql, kRedis };

// The framing the proxy reads for a service of `kind`: postgres, mariadb, redis; none else.
Framing FramingOfKind(std::string_view kind);
// The point's moment a framing counts (kNetCommit, kNetSetNx); null for kNone.
const char* FramingMoment(Framing framing);
// A fresh parser for one connection; null for kNone.
std::unique_ptr<ClientFraming> MakeClientFraming(Framing framing);

}  // namespace killpoint
