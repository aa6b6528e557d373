// A scenario's own invariant on an SQL service (docs/services.md): the query runs through its
// kind's read-only query (libpq, MariaDB's Connector/C) in a read-only transaction, on the trial's
// database as the job left it; the verdicts read as those of sql_checks.cc.
#include "check/checker.h"
#include "service/service_kinds.h"
#include "util/printable.h"

namespace killpoint {
namespace {

constexpr size_t kServiceRowsShown = 3;
constexpr size_t kServiceValueBytes = 60;
constexpr size_t kServiceExplanationBytes = 600;

std::string SqlRow(const SqlRows& rows, size_t i) {
  std::string row;
  for (size_t c = 0; c < rows.columns.size(); ++c) {
    const auto& value = rows.rows[i][c];
    row += (c == 0 ? "" : ", ") + Printable(rows.columns[c], kServiceValueBytes) + "=" +
           Printable(value ? *value : "NULL", kServiceValueBytes);
  }
  return row;
}

Verdict ExplainSqlRows(const std::string& name, const SqlCheck& check, const SqlRows& rows,
                       const std::string& where) {
  if (rows.rows.empty()) return Verdict::Held(name, "the query returned no row");
  std::string shown;
  for (size_t i = 0; i < rows.rows.size() && i < kServiceRowsShown; ++i) {
    shown += (i == 0 ? "" : "; ") + SqlRow(rows, i);
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
  const ServiceKindImpl* kind = FindServiceKindImpl(it->second.kind);
  if (kind == nullptr || kind->read_only == nullptr)
    return fail(Error::BadInput("a " + it->second.kind + " service answers no SQL"));
  auto rows = kind->read_only(it->second, check.sql);
  if (!rows) return fail(rows.error());
  return ExplainSqlRows(name, check, rows.value(), where);
}

}  // namespace killpoint
