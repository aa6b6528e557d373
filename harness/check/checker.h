// Invariants over a finished trial: its history and the final state of its sandbox.
// Each checker is a pure function of CheckInput. It reads files and never writes them, with one
// exception: a SQLite database is opened read-write (never created), because a job killed
// mid-transaction leaves a hot journal that only a writer may roll back; a read-only open would
// fail where the job's next start, or a person with sqlite3, sees the rolled-back database.
#pragma once

#include <SQLiteCpp/SQLiteCpp.h>

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "check/verdict.h"
#include "history/event.h"
#include "history/event_registry.h"
#include "plan/plan.h"
#include "scenario/scenario.h"
#include "service/service.h"
#include "util/result.h"

namespace killpoint {

struct CheckInput {
  const Scenario& scenario;
  const Plan& plan;
  const std::vector<Event>& events;
  std::filesystem::path workdir;   // the job's disk after the last attempt
  ServiceAddresses services = {};  // where the trial found the scenario's services

  // The dates the plan triggered, in first-trigger order.
  std::vector<std::string> Dates() const;
};

// A checker answers with a verdict, held or violated, or with an Error (kBadInput) when the
// scenario points it at something the job does not have (a table or column the job never
// writes): that is a mistake in the scenario, not a finding about the job, and it stops the
// run with exit 2 (cli/exit_codes.h). A database not written yet because the job was killed
// first is a verdict, never such an error.
using Checker = std::function<Result<Verdict>(const CheckInput&)>;

// The error a checker returns for a scenario that sends it to the wrong place: "FILE: FIELD:
// what", FIELD being the scenario field to set.
Error Misconfigured(const CheckInput& in, const std::string& field, const std::string& what);

// Whether the trial's last attempt ran to its end and exited 0: what it left is the job's
// finished state, so a file, table or column a checker needs and does not find there is
// one the job never writes.
bool LastAttemptSucceeded(const CheckInput& in);

// Opens a database as the job's next start would (see above); nullopt when there is none.
// Throws SQLite::Exception, also when the database or a -journal, -wal or -shm beside it is
// not a regular file (a FIFO would block SQLite's open; issue 34).
std::optional<SQLite::Database> OpenJobDatabase(const std::filesystem::path& file);
// The same test for a database about to be ATTACHed: throws SQLite::Exception.
void ThrowUnlessSqliteCanOpen(const std::filesystem::path& file);

using Checkers = std::map<std::string, Checker>;

// The most an explanation built from what the job left (rows, a command's output, an
// integrity check) may hold, as every report shows it whole.
inline constexpr size_t kExplanationBytes = 600;

// The built-in invariants of this stage by name: all of scenario/vocabulary.h's names but
// journal_complete, which reads the harness's own journals (results/checkers.h has them all).
const Checkers& BuiltinCheckers();

// A scenario's own invariant (scenario.h's SqlCheck) on the sandbox `workdir`.
Verdict RunSqlCheck(const std::string& name, const SqlCheck& check,
                    const std::filesystem::path& workdir);

// A scenario's own invariant on its postgres service `check.service`, found at `services`: the
// same verdicts as RunSqlCheck, the query run in a read-only transaction. A check on keys goes
// to RunServiceRedisCheck.
Verdict RunServiceSqlCheck(const std::string& name, const SqlCheck& check,
                           const ServiceAddresses& services);

// A key of a redis service as a check saw it: its remaining time to live in ms, or -1 when it
// never expires.
struct RedisKeyState {
  std::string key;
  long long ttl_ms = -1;
  bool operator==(const RedisKeyState&) const = default;
};

// A redis check's verdict (SqlCheck::redis) on `keys`, every key matching its pattern in
// `where` (a service, named for the explanation): too few, too many, or one without expiry
// when "ttl" is "required", violates it.
Verdict JudgeRedisKeys(const std::string& name, const SqlCheck& check,
                       const std::vector<RedisKeyState>& keys, const std::string& where);

// A scenario's own invariant on its redis service `check.service`: its keys read as they are
// at the trial's end (KEYS, then PTTL of each), judged by JudgeRedisKeys.
Verdict RunServiceRedisCheck(const std::string& name, const SqlCheck& check,
                             const ServiceAddresses& services);

// A scenario's own invariant on a queue of its rabbitmq service: held when the queue of the
// trial's vhost holds exactly `check.messages` messages ready (service_queue_checks.cc).
Verdict RunServiceQueueCheck(const std::string& name, const SqlCheck& check,
                             const ServiceAddresses& services);

// A scenario's own invariant as a command run in the sandbox `workdir` (check.command;
// command_checks.cc): exit 0 held, else violated with its output. An Error (kBadInput) when
// its program cannot be started.
Result<Verdict> RunCommandCheck(const std::string& name, const SqlCheck& check,
                                const std::filesystem::path& workdir);

// A scenario's own invariant wherever it reads: its SQLite database in `workdir` (RunSqlCheck),
// a command run there (RunCommandCheck), or its service at `services` (a queue, keys or SQL).
Result<Verdict> RunOwnCheck(const std::string& name, const SqlCheck& check,
                            const std::filesystem::path& workdir, const ServiceAddresses& services);

// The scenario's after_every_crash checks on a crash state (TrialOptions::crash_checks): each
// check's databases, with their -journal and -wal, are copied into `scratch`/NAME and checked
// there (a command check's whole sandbox), so that the retry meets the sandbox exactly as the
// persistence model left it (opening the database would roll a hot journal back). A check on a
// service reads it live at `services`: the server outlives the killed job, so what it holds now is
// the crash state (docs/services.md). A JSON array of Verdicts; an Error when a copy fails.
Result<nlohmann::json> CheckCrashState(const Scenario& scenario, const std::filesystem::path& work,
                                       const std::filesystem::path& scratch,
                                       const ServiceAddresses& services);

// An after_every_crash check's verdict: violated in the first crash state it failed in (the
// history's crash_check events), naming the point, date, attempt and model; else `at_end`.
// An Error when the trial had kills and no crash_check event (a runner without crash_checks).
Result<Verdict> OverEveryCrash(const std::string& name, const CheckInput& in, Verdict at_end);

// The verdicts of the scenario's invariants (must_hold, then expected_violations), each a
// scenario's own check or one of `checkers`, or the first checker's Error.
Result<std::vector<Verdict>> CheckTrial(const CheckInput& input, const Checkers& checkers);

// Checkers by family; each file registers its own.
void AddSettlementCheckers(std::map<std::string, Checker>& out);
void AddPublishCheckers(std::map<std::string, Checker>& out);
void AddLifecycleCheckers(std::map<std::string, Checker>& out);
void AddCommitCheckers(std::map<std::string, Checker>& out);
void AddDeliveryCheckers(std::map<std::string, Checker>& out);
void AddRetryCheckers(std::map<std::string, Checker>& out);        // retry_policy_respected
void AddSandboxCheckers(std::map<std::string, Checker>& out);      // writes_in_sandbox
void AddServerFaultCheckers(std::map<std::string, Checker>& out);  // server_kill_loses_nothing

}  // namespace killpoint
