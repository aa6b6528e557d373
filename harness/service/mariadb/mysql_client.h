// A small client of MariaDB's Connector/C for the harness's own statements on a mariadb service:
// the per-trial reset (mariadb.cc) and the scenario's SQL checks (check/service_sql_checks.cc).
// Rows come back in service.h's SqlRows, so that a check reads the same on either server.
#pragma once

#include <mysql.h>

#include <memory>
#include <string>

#include "service/postgres/pg_client.h"
#include "service/service.h"
#include "util/result.h"

namespace killpoint {

class MysqlConnection {
 public:
  // Connects over TCP to `database` of the server at `address` (its host, port and user; no
  // password), waiting at most `timeout_s` seconds. An empty `database`: none selected.
  static Result<MysqlConnection> Open(const ServiceAddress& address, const std::string& database,
                                      int timeout_s = 10);

  // Runs one statement. An error carries the server's message.
  Result<SqlRows> Query(const std::string& sql);
  Status Exec(const std::string& sql);

 private:
  explicit MysqlConnection(MYSQL* c) : conn_(c, mysql_close) {}
  Error Failed(const std::string& what) const;
  std::unique_ptr<MYSQL, void (*)(MYSQL*)> conn_;
};

// Whether a server answers at `address` (a connection as its user): for the start-up wait.
bool MysqlAccepting(const ServiceAddress& address);

// `name` quoted as a MariaDB identifier (`a``b`).
std::string MysqlIdentifier(const std::string& name);

}  // namespace killpoint
