#include "service/postgres/pg_client.h"

namespace killpoint {
namespace {

std::string ConnInfo(const ServiceAddress& a, const std::string& database, int timeout_s) {
  // Values in single quotes, with \ and ' escaped (libpq's conninfo syntax).
  auto quoted = [](const std::string& v) {
    std::string out = "'";
    for (char c : v) {
      if (c == '\'' || c == '\\') out += '\\';
      out += c;
    }
    return out + "'";
  };
  return "host=" + quoted(a.host) + " port=" + std::to_string(a.port) + " user=" + quoted(a.user) +
         " password=" + quoted(a.password) + " dbname=" + quoted(database) +
         " connect_timeout=" + std::to_string(timeout_s) + " sslmode=disable";
}

std::string Trimmed(const char* message) {
  std::string s = message ? message : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

Result<PgConnection> PgConnection::Open(const ServiceAddress& address, const std::string& database,
                                        int timeout_s) {
  PgConnection c(PQconnectdb(ConnInfo(address, database, timeout_s).c_str()));
  if (c.conn_ == nullptr) return Error::Harness("libpq: out of memory");
  // The server's notices ("does not exist, skipping") are not the harness's output.
  PQsetNoticeProcessor(
      c.conn_.get(), [](void*, const char*) {}, nullptr);
  if (PQstatus(c.conn_.get()) != CONNECTION_OK) {
    return Error::Harness("cannot connect to postgres at " + address.host + ":" +
                          std::to_string(address.port) + ": " +
                          Trimmed(PQerrorMessage(c.conn_.get())));
  }
  return c;
}

Result<SqlRows> PgConnection::Query(const std::string& sql) {
  std::unique_ptr<PGresult, void (*)(PGresult*)> r(
      PQexecParams(conn_.get(), sql.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0), PQclear);
  ExecStatusType status = r ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
  if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
    return Error::Harness(Trimmed(r ? PQresultErrorMessage(r.get()) : PQerrorMessage(conn_.get())));
  }
  SqlRows out;
  for (int c = 0; c < PQnfields(r.get()); ++c) out.columns.push_back(PQfname(r.get(), c));
  for (int i = 0; i < PQntuples(r.get()); ++i) {
    std::vector<std::optional<std::string>> row;
    for (int c = 0; c < PQnfields(r.get()); ++c) {
      if (PQgetisnull(r.get(), i, c))
        row.push_back(std::nullopt);
      else
        row.push_back(std::string(PQgetvalue(r.get(), i, c)));
    }
    out.rows.push_back(std::move(row));
  }
  return out;
}

Status PgConnection::Exec(const std::string& sql) {
  auto r = Query(sql);
  if (!r) return r.error();
  return Ok();
}

bool PgAccepting(const ServiceAddress& a) {
  return PQping(ConnInfo(a, "postgres", 2).c_str()) == PQPING_OK;
}

std::string PgIdentifier(const std::string& name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace killpoint
