// commits_survive: every transaction the job reported committed is still in its database.
// The job reports a commit by passing its named failpoint after_commit; the database holds
// commits(biz_date, attempt, ...) with one row per committing attempt (jobs/sqlite).
#include <algorithm>
#include <set>

#include "check/checker.h"
#include "history/event_registry.h"

namespace killpoint {
namespace {

// Where the scenario lists `name`, for a message that says what to change.
std::string ListedIn(const CheckInput& in, const std::string& name) {
  const auto& must = in.scenario.must_hold;
  return std::find(must.begin(), must.end(), name) != must.end() ? "invariants.must_hold"
                                                                 : "invariants.expected_violations";
}

// commits(biz_date, attempt) is jobs/sqlite's schema, not configurable: a job without it is
// the scenario's mistake (checker.h's Misconfigured), once the job finished, or at once when
// the table is there without a column.
std::optional<Error> SchemaMistake(const CheckInput& in, SQLite::Database& db) {
  std::set<std::string> columns;
  SQLite::Statement q(db, "SELECT lower(name) FROM pragma_table_info('commits')");
  while (q.executeStep()) columns.insert(q.getColumn(0).getString());
  if (columns.count("biz_date") && columns.count("attempt")) return std::nullopt;
  if (columns.empty() && !LastAttemptSucceeded(in)) return std::nullopt;  // not created yet
  return Misconfigured(
      in, ListedIn(in, "commits_survive"),
      "commits_survive reads table commits(biz_date, attempt) in " + in.scenario.check.db +
          (columns.empty() ? ", which the job did not create though its last attempt exited 0"
                           : ", which lacks one of those columns") +
          "; it fits jobs/sqlite's schema only: for another, write a check of your own "
          "(docs/scenarios.md, \"Your own invariants\")");
}

Result<Verdict> CommitsSurvive(const CheckInput& in) {
  const std::string name = "commits_survive";
  std::set<std::pair<std::string, int>> acknowledged;
  for (const auto& e : in.events) {
    if (e.type == event::Failpoint::kType && Read<event::Failpoint>(e).point == "after_commit") {
      acknowledged.insert({e.biz_date, e.attempt});
    }
  }
  try {
    auto db = OpenJobDatabase(in.workdir / in.scenario.check.db);
    if (!db) {
      if (acknowledged.empty()) return Verdict::Held(name, "no commit was reported");
      return Verdict::Violated(name, in.scenario.check.db + " is gone, with " +
                                         std::to_string(acknowledged.size()) + " reported commits");
    }
    if (auto mistake = SchemaMistake(in, *db)) return *mistake;
    SQLite::Statement q(*db, "SELECT 1 FROM commits WHERE biz_date = ? AND attempt = ?");
    for (const auto& [date, attempt] : acknowledged) {
      q.reset();
      q.bind(1, date);
      q.bind(2, attempt);
      if (!q.executeStep()) {
        return Verdict::Violated(name, date + ": the commit of attempt " + std::to_string(attempt) +
                                           " was reported (after_commit) but is not in " +
                                           in.scenario.check.db + " after the crash");
      }
    }
    return Verdict::Held(name,
                         std::to_string(acknowledged.size()) + " reported commits all survived");
  } catch (const SQLite::Exception& e) {
    return Verdict::Violated(name, "cannot read " + in.scenario.check.db + ": " + e.what());
  }
}

}  // namespace

void AddCommitCheckers(std::map<std::string, Checker>& out) {
  out["commits_survive"] = CommitsSurvive;
}

}  // namespace killpoint
