// one_row_per_date and amount_matches_source, over the job's SQLite database (check.db), in the
// tables and columns of check.settlement (scenario.h's SettlementSchema). The defaults are the
// settle job's schema:
//   orders(order_id, biz_date, amount_cents)
//   daily_settlement(settle_key, biz_date, amount_cents, order_count, computed_at)
// What the scenario names and the database lacks is the scenario's mistake (checker.h's
// Misconfigured: exit 2, naming the field to set): a column always, the database or a table
// once the job finished (LastAttemptSucceeded). Before that, a database or table not there is
// one the job has not written yet: nothing to violate.
#include <SQLiteCpp/SQLiteCpp.h>

#include <algorithm>
#include <cctype>

#include "check/checker.h"
#include "history/event_registry.h"
#include "util/printable.h"

namespace killpoint {
namespace {

constexpr const char* kSchemaDoc = " (docs/scenarios.md, \"What the built-in invariants read\")";

// One column an invariant reads, and the scenario fields that name it.
struct Need {
  std::string table_field;  // e.g. "check.settlement.table"
  std::string table;
  std::string field;  // e.g. "check.settlement.date_column"
  std::string column;
  std::string holds;  // what the column holds, for the message
};

std::vector<Need> SettlementNeeds(const SettlementSchema& s, bool amounts) {
  const std::string t = "check.settlement.table", st = "check.settlement.source_table";
  std::vector<Need> out = {
      {t, s.table, "check.settlement.date_column", s.date_column, "the business date"}};
  if (!s.key_column.empty())
    out.push_back(
        {t, s.table, "check.settlement.key_column", s.key_column, "a row's key (\"\" for none)"});
  if (!amounts) return out;
  out.push_back(
      {t, s.table, "check.settlement.amount_column", s.amount_column, "the settled amount"});
  if (!s.count_column.empty())
    out.push_back({t, s.table, "check.settlement.count_column", s.count_column,
                   "the number of source rows (\"\" for none)"});
  out.push_back({st, s.source_table, "check.settlement.source_date_column", s.source_date_column,
                 "a source row's business date"});
  out.push_back({st, s.source_table, "check.settlement.source_amount_column",
                 s.source_amount_column, "a source row's amount"});
  return out;
}

std::string QuoteIdentifier(const std::string& id) {
  std::string out = "\"";
  for (char c : id) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::vector<std::string> Strings(SQLite::Statement q) {
  std::vector<std::string> out;
  while (q.executeStep()) out.push_back(q.getColumn(0).getString());
  return out;
}

std::vector<std::string> Columns(SQLite::Database& db, const std::string& table) {
  SQLite::Statement q(db, "SELECT name FROM pragma_table_info(?)");
  q.bind(1, table);
  return Strings(std::move(q));
}

std::string List(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

bool SameName(const std::string& a, const std::string& b) {  // SQLite's names ignore ASCII case
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// The error for the first thing `needs` names that `db` lacks; a missing table only once the
// job finished, else the verdict that nothing was written yet.
std::optional<Result<Verdict>> SchemaGap(const CheckInput& in, const std::string& name,
                                         SQLite::Database& db, const std::vector<Need>& needs) {
  const std::string& file = in.scenario.check.db;
  for (const Need& n : needs) {
    std::vector<std::string> columns = Columns(db, n.table);
    if (columns.empty()) {
      if (!LastAttemptSucceeded(in))
        return Verdict::Held(name, n.table + " is not in " + file + " yet");
      auto tables =
          Strings(SQLite::Statement(db,
                                    "SELECT name FROM sqlite_master WHERE type IN ('table', "
                                    "'view') AND name NOT LIKE 'sqlite_%' ORDER BY name"));
      std::vector<std::string> read;
      for (const Need& m : needs) {
        if (m.table == n.table) read.push_back(m.column);
      }
      return Misconfigured(
          in, n.table_field,
          name + " reads columns " + List(read) + " of table '" + n.table + "' in " + file +
              ", which the job did not create though its last attempt exited 0 (tables there: " +
              List(tables) + "); set " + n.table_field + kSchemaDoc);
    }
    if (std::none_of(columns.begin(), columns.end(),
                     [&](const auto& c) { return SameName(c, n.column); })) {
      return Misconfigured(in, n.field,
                           name + " reads " + n.holds + " from column '" + n.column +
                               "' of table '" + n.table + "' in " + file +
                               ", which has no such column (its columns: " + List(columns) +
                               "); set " + n.field + kSchemaDoc);
    }
  }
  return std::nullopt;
}

// The job's database when it has everything `needs`; else, in `early`, the verdict (nothing
// written yet) or the scenario's error.
std::optional<SQLite::Database> Open(const CheckInput& in, const std::string& name,
                                     const std::vector<Need>& needs,
                                     std::optional<Result<Verdict>>& early) {
  auto db = OpenJobDatabase(in.workdir / in.scenario.check.db);
  if (!db && LastAttemptSucceeded(in)) {
    early = Misconfigured(
        in, "check.db",
        name + " reads " + in.scenario.check.db +
            ", which the job did not create though its last attempt exited 0; set check.db to "
            "the job's database" +
            kSchemaDoc);
  } else if (!db) {
    early = Verdict::Held(name, in.scenario.check.db + " was never created");
  } else {
    early = SchemaGap(in, name, *db, needs);
  }
  if (early) return std::nullopt;
  return db;
}

std::string KeyExpr(const SettlementSchema& s) {
  return s.key_column.empty() ? "'rowid ' || rowid" : QuoteIdentifier(s.key_column);
}

Result<Verdict> OneRowPerDate(const CheckInput& in) {
  const std::string name = "one_row_per_date";
  const SettlementSchema& s = in.scenario.check.settlement;
  try {
    std::optional<Result<Verdict>> early;
    auto db = Open(in, name, SettlementNeeds(s, false), early);
    if (!db) return std::move(*early);
    const std::string date = QuoteIdentifier(s.date_column);
    SQLite::Statement q(*db, "SELECT " + date + ", COUNT(*), group_concat(" + KeyExpr(s) +
                                 ", ', ') FROM " + QuoteIdentifier(s.table) + " GROUP BY " + date +
                                 " HAVING COUNT(*) > 1 ORDER BY " + date + " LIMIT 1");
    if (!q.executeStep()) return Verdict::Held(name, "every date has at most one settlement row");
    return Verdict::Violated(
        name,
        Printable(q.getColumn(0).getString() + " has " + std::to_string(q.getColumn(1).getInt()) +
                      " rows in " + s.table + " (keys " + q.getColumn(2).getString() + ")",
                  600));
  } catch (const SQLite::Exception& e) {
    return Verdict::Violated(name, "cannot read " + in.scenario.check.db + ": " + e.what());
  }
}

// Did any attempt for `date` exit 0?
bool ReportedSuccess(const CheckInput& in, const std::string& date) {
  for (const auto& e : in.events) {
    if (e.type == event::Exit::kType && e.biz_date == date && Read<event::Exit>(e).code == 0)
      return true;
  }
  return false;
}

// "350 cents" with the default schema's cents, "350" with another.
std::string Amount(const SettlementSchema& s, int64_t v) {
  return std::to_string(v) + (s.amount_column == SettlementSchema{}.amount_column ? " cents" : "");
}

std::string Rows(const SettlementSchema& s, int64_t n) {
  std::string noun =
      s.source_table == SettlementSchema{}.source_table ? "order" : s.source_table + " row";
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

Result<Verdict> AmountMatchesSource(const CheckInput& in) {
  const std::string name = "amount_matches_source";
  const SettlementSchema& s = in.scenario.check.settlement;
  try {
    std::optional<Result<Verdict>> early;
    auto db = Open(in, name, SettlementNeeds(s, true), early);
    if (!db) return std::move(*early);
    const bool counted = !s.count_column.empty();
    for (const auto& date : in.Dates()) {
      SQLite::Statement src(*db, "SELECT COALESCE(SUM(" + QuoteIdentifier(s.source_amount_column) +
                                     "), 0), COUNT(*) FROM " + QuoteIdentifier(s.source_table) +
                                     " WHERE " + QuoteIdentifier(s.source_date_column) + " = ?");
      src.bind(1, date);
      src.executeStep();
      int64_t want = src.getColumn(0).getInt64();
      int64_t want_count = src.getColumn(1).getInt64();
      SQLite::Statement rows(*db, "SELECT " + KeyExpr(s) + ", " + QuoteIdentifier(s.amount_column) +
                                      ", " + (counted ? QuoteIdentifier(s.count_column) : "NULL") +
                                      " FROM " + QuoteIdentifier(s.table) + " WHERE " +
                                      QuoteIdentifier(s.date_column) + " = ?");
      rows.bind(1, date);
      bool any = false;
      while (rows.executeStep()) {
        any = true;
        int64_t got = rows.getColumn(1).getInt64();
        int64_t got_count = rows.getColumn(2).getInt64();
        if (got != want || (counted && got_count != want_count)) {
          return Verdict::Violated(
              name, Printable(date + ": " + s.table + " row '" + rows.getColumn(0).getString() +
                                  "' says " + Amount(s, got) +
                                  (counted ? " over " + Rows(s, got_count) : "") + ", but the " +
                                  Rows(s, want_count) + " of the date sum to " + Amount(s, want),
                              600));
        }
      }
      if (!any && ReportedSuccess(in, date)) {
        return Verdict::Violated(name,
                                 date + ": the job exited 0 but " + s.table + " has no row for it");
      }
    }
    return Verdict::Held(name, "every settlement row equals the sum of its orders");
  } catch (const SQLite::Exception& e) {
    return Verdict::Violated(name, "cannot read " + in.scenario.check.db + ": " + e.what());
  }
}

}  // namespace

void AddSettlementCheckers(std::map<std::string, Checker>& out) {
  out["one_row_per_date"] = OneRowPerDate;
  out["amount_matches_source"] = AmountMatchesSource;
}

}  // namespace killpoint
