#include "service/client_framing.h"

#include <algorithm>
#include <cctype>

#include "scenario/net_point.h"
#include "scenario/service_kind.h"
#include "service/mariadb/mysql_framing.h"
#include "service/postgres/pg_framing.h"
#include "service/rabbitmq/amqp_framing.h"
#include "service/redis/redis_framing.h"

namespace killpoint {
namespace {

constexpr size_t kMaxVerb = 32;

}  // namespace

std::vector<size_t> ClientFraming::Feed(std::string_view bytes) {
  std::vector<size_t> ends;
  for (const ClientCommand& c : Read(bytes)) {
    if (c.counted) ends.push_back(c.end);
  }
  return ends;
}

std::string CommandVerb(std::string_view word, bool keep_case) {
  auto fits = [](char c) { return std::isalnum(uint8_t(c)) || c == '_' || c == '.'; };
  if (word.empty() || word.size() > kMaxVerb || !std::isalpha(uint8_t(word.front())) ||
      !std::all_of(word.begin(), word.end(), fits))
    return "OTHER";
  std::string out(word);
  if (!keep_case) {
    for (char& c : out) c = char(std::toupper(uint8_t(c)));
  }
  return out;
}

std::string SqlVerb(std::string_view sql) {
  size_t i = 0;
  while (i < sql.size()) {
    if (std::isspace(uint8_t(sql[i])) || sql[i] == '(' || sql[i] == ';') {
      ++i;
    } else if (sql.substr(i).starts_with("--")) {
      size_t nl = sql.find('\n', i);
      i = nl == std::string_view::npos ? sql.size() : nl + 1;
    } else if (sql.substr(i).starts_with("/*")) {
      size_t close = sql.find("*/", i + 2);
      i = close == std::string_view::npos ? sql.size() : close + 2;
    } else {
      break;
    }
  }
  size_t end = i;
  while (end < sql.size() && std::isalpha(uint8_t(sql[end]))) ++end;
  return CommandVerb(sql.substr(i, end - i));
}

std::unique_ptr<ClientFraming> MakeClientFraming(WireProtocol protocol) {
  switch (protocol) {  // a protocol without a case here fails the build (-Wswitch)
    case WireProtocol::kPostgres:
      return std::make_unique<PgFrontendParser>();
    case WireProtocol::kMysql:
      return std::make_unique<MysqlClientParser>();
    case WireProtocol::kRedis:
      return std::make_unique<RespCommandParser>();
    case WireProtocol::kAmqp:
      return std::make_unique<AmqpClientParser>();
  }
  return nullptr;
}

}  // namespace killpoint
