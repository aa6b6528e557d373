// one_row_per_date and amount_matches_source, over the settle job's SQLite database:
//   orders(order_id, biz_date, amount_cents)
//   daily_settlement(settle_key, biz_date, amount_cents, order_count, computed_at)
#include <SQLiteCpp/SQLiteCpp.h>

#include "check/checker.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;

// An absent database means the job never wrote one.
std::optional<SQLite::Database> OpenDb(const CheckInput& in) {
  return OpenJobDatabase(in.workdir / in.scenario.check.db);
}

Verdict OneRowPerDate(const CheckInput& in) {
  const std::string name = "one_row_per_date";
  try {
    auto db = OpenDb(in);
    if (!db) return Verdict::Held(name, in.scenario.check.db + " was never created");
    SQLite::Statement q(*db,
                        "SELECT biz_date, COUNT(*), group_concat(settle_key, ', ') "
                        "FROM daily_settlement GROUP BY biz_date HAVING COUNT(*) > 1 "
                        "ORDER BY biz_date LIMIT 1");
    if (!q.executeStep()) return Verdict::Held(name, "every date has at most one settlement row");
    return Verdict::Violated(name, q.getColumn(0).getString() + " has " +
                                       std::to_string(q.getColumn(1).getInt()) +
                                       " rows in daily_settlement (keys " +
                                       q.getColumn(2).getString() + ")");
  } catch (const SQLite::Exception& e) {
    return Verdict::Violated(name, "cannot read " + in.scenario.check.db + ": " + e.what());
  }
}

// Did any attempt for `date` exit 0?
bool ReportedSuccess(const CheckInput& in, const std::string& date) {
  for (const auto& e : in.events) {
    if (e.type == event::kExit && e.biz_date == date && e.data.value("code", -1) == 0) return true;
  }
  return false;
}

Verdict AmountMatchesSource(const CheckInput& in) {
  const std::string name = "amount_matches_source";
  try {
    auto db = OpenDb(in);
    if (!db) return Verdict::Held(name, in.scenario.check.db + " was never created");
    for (const auto& date : in.Dates()) {
      SQLite::Statement src(*db, "SELECT COALESCE(SUM(amount_cents), 0), COUNT(*) FROM orders WHERE biz_date = ?");
      src.bind(1, date);
      src.executeStep();
      int64_t want = src.getColumn(0).getInt64();
      int want_count = src.getColumn(1).getInt();
      SQLite::Statement rows(*db, "SELECT settle_key, amount_cents, order_count FROM daily_settlement WHERE biz_date = ?");
      rows.bind(1, date);
      bool any = false;
      while (rows.executeStep()) {
        any = true;
        int64_t got = rows.getColumn(1).getInt64();
        if (got != want || rows.getColumn(2).getInt() != want_count) {
          return Verdict::Violated(
              name, date + ": daily_settlement row '" + rows.getColumn(0).getString() + "' says " +
                        std::to_string(got) + " cents over " + rows.getColumn(2).getString() +
                        " orders, but the " + std::to_string(want_count) + " orders of the date sum to " +
                        std::to_string(want) + " cents");
        }
      }
      if (!any && ReportedSuccess(in, date)) {
        return Verdict::Violated(name, date + ": the job exited 0 but daily_settlement has no row for it");
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
