// A scenario's own invariants (scenario.h's SqlCheck): the query returns the violating rows,
// no row means the invariant held. See docs/scenarios.md, "Your own invariants".
#include <sqlite3.h>

#include "check/checker.h"
#include "util/printable.h"

namespace killpoint {
namespace {

constexpr int kRowsShown = 3;        // rows named in an explanation
constexpr int kRowsCounted = 10000;  // beyond this the count is "10000+"
constexpr size_t kValueBytes = 60;   // one value's printed size

std::string Row(SQLite::Statement& q) {
  std::string row;
  for (int c = 0; c < q.getColumnCount(); ++c) {
    SQLite::Column col = q.getColumn(c);
    std::string value = col.isNull() ? "NULL" : col.getString();
    row += (c == 0 ? "" : ", ") + Printable(col.getName(), kValueBytes) + "=" +
           Printable(value, kValueBytes);
  }
  return row;
}

// Whether the statement, prepared on the job's schema, writes nothing (and is one statement).
bool ReadOnly(SQLite::Database& db, const std::string& sql) {
  sqlite3_stmt* stmt = nullptr;
  const char* tail = nullptr;
  if (sqlite3_prepare_v2(db.getHandle(), sql.c_str(), static_cast<int>(sql.size()), &stmt, &tail) !=
      SQLITE_OK) {
    return true;  // SQLite::Statement reports the error with its message
  }
  bool read_only = stmt == nullptr || sqlite3_stmt_readonly(stmt);
  sqlite3_finalize(stmt);
  return read_only;
}

}  // namespace

Verdict RunSqlCheck(const std::string& name, const SqlCheck& check,
                    const std::filesystem::path& workdir) {
  try {
    auto db = OpenJobDatabase(workdir / check.db);
    if (!db) {
      if (check.missing_db_holds)
        return Verdict::Held(name, check.db + " does not exist (missing_db: held)");
      return Verdict::Violated(
          name, check.db + " does not exist, so the check cannot hold (" + check.says + ")");
    }
    for (const auto& [alias, file] : check.attach) {  // the query's other databases, by name
      std::error_code ec;
      if (!std::filesystem::exists(workdir / file, ec)) {
        if (check.missing_db_holds)
          return Verdict::Held(name, file + " does not exist (missing_db: held)");
        return Verdict::Violated(
            name, file + " does not exist, so the check cannot hold (" + check.says + ")");
      }
      ThrowUnlessSqliteCanOpen(workdir / file);
      SQLite::Statement attach(*db, "ATTACH DATABASE ? AS \"" + alias + "\"");
      attach.bind(1, (workdir / file).string());
      attach.exec();
    }
    if (!ReadOnly(*db, check.sql)) {
      return Verdict::Violated(name, "the check's SQL is not a read-only query; it was not run");
    }
    SQLite::Statement q(*db, check.sql);
    int rows = 0;
    std::string shown;
    while (rows < kRowsCounted && q.executeStep()) {
      if (rows < kRowsShown) shown += (rows == 0 ? "" : "; ") + Row(q);
      ++rows;
    }
    if (rows == 0) return Verdict::Held(name, "the query returned no row");
    std::string count =
        std::to_string(rows) + (rows == kRowsCounted ? "+" : "") + (rows == 1 ? " row" : " rows");
    return Verdict::Violated(
        name,
        Printable(check.says + ": " + count + " in " + check.db + ", " +
                      (rows > kRowsShown ? "first " + std::to_string(kRowsShown) + ": " : "") +
                      shown,
                  kExplanationBytes));
  } catch (const SQLite::Exception& e) {
    return Verdict::Violated(
        name,
        Printable("cannot run the check on " + check.db + ": " + e.what(), kExplanationBytes));
  }
}

}  // namespace killpoint
