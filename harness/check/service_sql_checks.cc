// A scenario's own invariant on a postgres or mariadb service (docs/services.md): the query runs
// through libpq or MariaDB's Connector/C in a read-only transaction, on the trial's database as
// the job left it; the verdicts read as those of sql_checks.cc.
#include "check/checker.h"
#include "service/mysql_client.h"
#include "service/pg_client.h"
#include "util/printable.h"

namespace killpoint {
namespace {

constexpr size_t kServiceRowsShown = 3;
constexpr size_t kServiceValueBytes = 60;
constexpr size_t kServiceExplanationBytes = 600;

std::string PgRow(const PgRows& rows, size_t i) {
  std::string row;
  for (size_t c = 0; c < rows.columns.size(); ++c) {
    const auto& value = rows.rows[i][c];
    row += (c == 0 ? "" : ", ") + Printable(rows.columns[c], kServiceValueBytes) + "=" +
           Printable(value ? *value : "NULL", kServiceValueBytes);
  }
  return row;
}

Verdict ExplainPgRows(const std::string& name, const SqlCheck& check, const PgRows& rows,
                      const std::string& where) {
  if (rows.rows.empty()) return Verdict::Held(name, "the query returned no row");
  std::string shown;
  for (size_t i = 0; i < rows.rows.size() && i < kServiceRowsShown; ++i) {
    shown += (i == 0 ? "" : "; ") + PgRow(rows, i);
  }
  size_t n = rows.rows.size();
  return Verdict::Violated(
      name,
      Printable(
          check.says + ": " + std::to_string(n) + (n == 1 ? " row" : " rows") + " in " + where +
              ", " +
              (n > kServiceRowsShown ? "first " + std::to_string(kServiceRowsShown) + ": " : "") +
              shown,
          kServiceExplanationBytes));
}

// The query in a read-only transaction, where a write fails.
Result<PgRows> PgReadOnly(const ServiceAddress& address, const std::string& sql) {
  auto conn = PgConnection::Open(address, address.database);
  if (!conn) return conn.error();
  if (Status s = conn.value().Exec("BEGIN READ ONLY"); !s) return s.error();
  return conn.value().Query(sql);
}

Result<PgRows> MysqlReadOnly(const ServiceAddress& address, const std::string& sql) {
  auto conn = MysqlConnection::Open(address, address.database);
  if (!conn) return conn.error();
  if (Status s = conn.value().Exec("START TRANSACTION READ ONLY"); !s) return s.error();
  return conn.value().Query(sql);
}

}  // namespace

Verdict RunServiceSqlCheck(const std::string& name, const SqlCheck& check,
                           const ServiceAddresses& services) {
  if (!check.redis.keys.empty()) return RunServiceRedisCheck(name, check, services);
  auto it = services.find(check.service);
  if (it == services.end()) {
    return Verdict::Violated(name, "service " + check.service + " did not run in this trial");
  }
  const std::string where = "service " + check.service + " (" + it->second.kind + ")";
  auto fail = [&](const Error& e) {
    return Verdict::Violated(name, Printable("cannot run the check on " + where + ": " + e.message,
                                             kServiceExplanationBytes));
  };
  auto rows = it->second.kind == "mariadb" ? MysqlReadOnly(it->second, check.sql)
                                           : PgReadOnly(it->second, check.sql);
  if (!rows) return fail(rows.error());
  return ExplainPgRows(name, check, rows.value(), where);
}

}  // namespace killpoint
