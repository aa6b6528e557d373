// commits_survive: every transaction the job reported committed is still in its database.
// The job reports a commit by passing its named failpoint after_commit; the database holds
// commits(biz_date, attempt, ...) with one row per committing attempt (jobs/sqlite).
#include <set>

#include "check/checker.h"

namespace killpoint {
namespace {

Verdict CommitsSurvive(const CheckInput& in) {
  const std::string name = "commits_survive";
  std::set<std::pair<std::string, int>> acknowledged;
  for (const auto& e : in.events) {
    if (e.type == event::kFailpoint && e.data.value("point", "") == "after_commit") {
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
    return Verdict::Held(name, std::to_string(acknowledged.size()) + " reported commits all survived");
  } catch (const SQLite::Exception& e) {
    return Verdict::Violated(name, "cannot read " + in.scenario.check.db + ": " + e.what());
  }
}

}  // namespace

void AddCommitCheckers(std::map<std::string, Checker>& out) { out["commits_survive"] = CommitsSurvive; }

}  // namespace killpoint
