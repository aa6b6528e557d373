#include "service/client_framing.h"

#include "scenario/net_point.h"
#include "service/mysql_framing.h"
#include "service/pg_framing.h"
#include "service/redis_framing.h"

namespace killpoint {

Framing FramingOfKind(std::string_view kind) {
  if (kind == "postgres") return Framing::kPostgres;
  if (kind == "mariadb") return Framing::kMysql;
  if (kind == "redis") return Framing::kRedis;
  return Framing::kNone;
}

const char* FramingMoment(Framing framing) {
  switch (framing) {
    case Framing::kPostgres:
    case Framing::kMysql:
      return kNetCommit;
    case Framing::kRedis:
      return kNetSetNx;
    case Framing::kNone:
      break;
  }
  return nullptr;
}

std::unique_ptr<ClientFraming> MakeClientFraming(Framing framing) {
  switch (framing) {
    case Framing::kPostgres:
      return std::make_unique<PgFrontendParser>();
    case Framing::kMysql:
      return std::make_unique<MysqlClientParser>();
    case Framing::kRedis:
      return std::make_unique<RespCommandParser>();
    case Framing::kNone:
      break;
  }
  return nullptr;
}

}  // namespace killpoint
