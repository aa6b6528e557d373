#include "service/mariadb/mysql_client.h"

namespace killpoint {

Result<MysqlConnection> MysqlConnection::Open(const ServiceAddress& address,
                                              const std::string& database, int timeout_s) {
  MYSQL* c = mysql_init(nullptr);
  if (c == nullptr) return Error::Harness("mariadb client: out of memory");
  MysqlConnection conn(c);
  unsigned timeout = static_cast<unsigned>(timeout_s);
  unsigned protocol = MYSQL_PROTOCOL_TCP;  // never a socket file of the machine's own server
  mysql_options(c, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
  mysql_options(c, MYSQL_OPT_READ_TIMEOUT, &timeout);
  mysql_options(c, MYSQL_OPT_WRITE_TIMEOUT, &timeout);
  mysql_options(c, MYSQL_OPT_PROTOCOL, &protocol);
  if (mysql_real_connect(c, address.host.c_str(), address.user.c_str(), address.password.c_str(),
                         database.empty() ? nullptr : database.c_str(),
                         static_cast<unsigned>(address.port), nullptr, 0) == nullptr) {
    return Error::Harness("cannot connect to mariadb at " + address.host + ":" +
                          std::to_string(address.port) + ": " + mysql_error(c));
  }
  return conn;
}

Error MysqlConnection::Failed(const std::string& what) const {
  return Error::Harness("mariadb: " + what + ": " + mysql_error(conn_.get()));
}

Result<SqlRows> MysqlConnection::Query(const std::string& sql) {
  MYSQL* c = conn_.get();
  if (mysql_real_query(c, sql.data(), sql.size()) != 0) return Failed("query failed");
  std::unique_ptr<MYSQL_RES, void (*)(MYSQL_RES*)> res(mysql_store_result(c), mysql_free_result);
  SqlRows out;
  if (!res) {
    if (mysql_field_count(c) != 0) return Failed("cannot read the result");
    return out;  // a statement with no result set
  }
  unsigned n = mysql_num_fields(res.get());
  MYSQL_FIELD* fields = mysql_fetch_fields(res.get());
  for (unsigned i = 0; i < n; ++i) out.columns.emplace_back(fields[i].name);
  while (MYSQL_ROW row = mysql_fetch_row(res.get())) {
    unsigned long* lengths = mysql_fetch_lengths(res.get());
    auto& r = out.rows.emplace_back();
    for (unsigned i = 0; i < n; ++i) {
      if (row[i] == nullptr) {
        r.emplace_back(std::nullopt);
      } else {
        r.emplace_back(std::string(row[i], lengths[i]));
      }
    }
  }
  return out;
}

Status MysqlConnection::Exec(const std::string& sql) {
  auto rows = Query(sql);
  if (!rows) return rows.error();
  return Ok();
}

bool MysqlAccepting(const ServiceAddress& address) {
  return static_cast<bool>(MysqlConnection::Open(address, "", 2));
}

std::string MysqlIdentifier(const std::string& name) {
  std::string out = "`";
  for (char c : name) out += c == '`' ? std::string("``") : std::string(1, c);
  return out + "`";
}

}  // namespace killpoint
