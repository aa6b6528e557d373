// Invariants over a finished trial: its history and the final state of its sandbox.
// Each checker is a pure function of CheckInput. It reads files and never writes them, with one
// exception: a SQLite database is opened read-write (never created), because a job killed
// mid-transaction leaves a hot journal that only a writer may roll back; a read-only open would
// fail where the job's next start, or a person with sqlite3, sees the rolled-back database.
#pragma once

#include <filesystem>
#include <SQLiteCpp/SQLiteCpp.h>

#include <functional>
#include <optional>
#include <map>
#include <string>
#include <vector>

#include "check/verdict.h"
#include "history/event.h"
#include "plan/plan.h"
#include "scenario/scenario.h"

namespace killpoint {

struct CheckInput {
  const Scenario& scenario;
  const Plan& plan;
  const std::vector<Event>& events;
  std::filesystem::path workdir;  // the job's disk after the last attempt

  // The dates the plan triggered, in first-trigger order.
  std::vector<std::string> Dates() const;
};

using Checker = std::function<Verdict(const CheckInput&)>;

// Opens a database as the job's next start would (see above). Throws SQLite::Exception.
std::optional<SQLite::Database> OpenJobDatabase(const std::filesystem::path& file);

// Every built-in invariant by name (the names of scenario/vocabulary.h).
const std::map<std::string, Checker>& BuiltinCheckers();

// A scenario's own invariant (scenario.h's SqlCheck) on the sandbox `workdir`.
Verdict RunSqlCheck(const std::string& name, const SqlCheck& check,
                    const std::filesystem::path& workdir);

// The verdicts of the scenario's invariants (must_hold, then expected_violations).
std::vector<Verdict> CheckTrial(const CheckInput& input);

// Checkers by family; each file registers its own.
void AddSettlementCheckers(std::map<std::string, Checker>& out);
void AddPublishCheckers(std::map<std::string, Checker>& out);
void AddLifecycleCheckers(std::map<std::string, Checker>& out);
void AddCommitCheckers(std::map<std::string, Checker>& out);
void AddSelftestCheckers(std::map<std::string, Checker>& out);  // the harness's own writer
void AddDeliveryCheckers(std::map<std::string, Checker>& out);
void AddRetryCheckers(std::map<std::string, Checker>& out);  // retry_policy_respected

}  // namespace killpoint
