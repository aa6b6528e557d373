// A small libpq client for the harness's own statements on a postgres service: the per-trial
// reset (postgres.cc) and the scenario's SQL checks (check/sql_checks.cc).
#pragma once

#include <libpq-fe.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "service/service.h"
#include "util/result.h"

namespace killpoint {

class PgConnection {
 public:
  // Connects to `database` of the server at `address` (its host, port and user), waiting at
  // most `timeout_s` seconds.
  static Result<PgConnection> Open(const ServiceAddress& address, const std::string& database,
                                   int timeout_s = 10);

  // Runs one statement (PQexecParams: more than one is refused). An error carries the server's
  // message.
  Result<SqlRows> Query(const std::string& sql);
  Status Exec(const std::string& sql);

 private:
  explicit PgConnection(PGconn* c) : conn_(c, PQfinish) {}
  std::unique_ptr<PGconn, void (*)(PGconn*)> conn_;
};

// Whether a server answers at `address` (PQping): for the start-up wait.
bool PgAccepting(const ServiceAddress& address);

// `name` quoted as a PostgreSQL identifier ("a""b").
std::string PgIdentifier(const std::string& name);

}  // namespace killpoint
