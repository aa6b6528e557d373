// A scenario: which job to run, on which business dates, where it may be killed, how the
// scheduler retries it, what the downstream does, and which invariants must hold or are
// expected to break. Plain data; ParseScenario (scenario_parser.h) is its only JSON reader.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "scenario/fault_action.h"
#include "scenario/persistence_model.h"
#include "util/name_table.h"

namespace killpoint {

// Retry strategies (docs/retry.md): jitter on the backoff delay, a rate limit on attempts per
// window and a circuit breaker. Their arithmetic is plan/retry_schedule.h.
enum class Jitter { kNone, kFull, kEqual, kDecorrelated };
inline constexpr auto kJitterNames = MakeNameTable<Jitter>({
    {Jitter::kNone, "none"},
    {Jitter::kFull, "full"},
    {Jitter::kEqual, "equal"},
    {Jitter::kDecorrelated, "decorrelated"},
});
static_assert(kJitterNames.Unique());

// At most max_attempts attempt starts in any window of window_ms. max_attempts 0: no limit.
struct RateLimit {
  int max_attempts = 0;
  int64_t window_ms = 0;
  bool operator==(const RateLimit&) const = default;
};

// Opens after failure_threshold consecutive failed attempts; after open_ms one attempt (the
// half-open probe) may go; its success closes the breaker, its failure opens it again.
// failure_threshold 0: no breaker.
struct CircuitBreakerPolicy {
  int failure_threshold = 0;
  int64_t open_ms = 0;
  bool operator==(const CircuitBreakerPolicy&) const = default;
};

// The scheduler's retry policy, with the field names users know from workflow engines.
struct RetryPolicy {
  int max_attempts = 3;
  int64_t initial_interval_ms = 1000;
  double backoff_coefficient = 2.0;  // 1.0: a fixed interval
  int64_t maximum_interval_ms = 60000;
  Jitter jitter = Jitter::kNone;
  std::vector<int> non_retryable_exit_codes;  // an attempt exiting with one is not retried
  RateLimit rate_limit;
  CircuitBreakerPolicy circuit_breaker;
  // job_retry only: each in-process retry asks the downstream about its key (GET
  // /deliveries) before it publishes again. A scheduler's retry is a new process, which
  // reloads by starting.
  bool reload_before_retry = false;

  // The virtual delay before attempt `next_attempt` (2, 3, ...): initial * coeff^(n-2), capped.
  int64_t DelayBeforeAttempt(int next_attempt) const;
  bool operator==(const RetryPolicy&) const = default;
};

struct JobSpec {
  std::vector<std::string> command;  // argv with placeholders such as {bindir}, {workdir}
  std::vector<std::string> setup;    // optional, run once per trial before the first attempt
  std::map<std::string, std::string> env;
  int64_t timeout_ms = 10000;  // per attempt; a hung job is killed
  // The largest file an attempt may write (RLIMIT_FSIZE); beyond it the job dies of SIGXFSZ.
  // 0: no limit. The default is proc/process.h's kDefaultMaxFileBytes (1 GiB).
  int64_t max_file_bytes = int64_t{1} << 30;
  bool operator==(const JobSpec&) const = default;
};

// Faults the downstream service can be told to commit on a publish request.
inline constexpr const char* kFailBeforeCommit = "fail_before_commit";
inline constexpr const char* kCommitNoAnswer = "commit_no_answer";
// Commits and answers, late: kDownstreamDelayMs of real time, under the jobs' 300 ms timeouts.
inline constexpr const char* kDelay = "delay";
inline constexpr int kDownstreamDelayMs = 100;

// What a deduplicating downstream compares: the body's "key" (the default) or the request's
// Idempotency-Key header (a fresh key per call then deduplicates nothing).
inline constexpr const char* kDedupeByKey = "key";
inline constexpr const char* kDedupeByIdempotencyKey = "idempotency_key";

struct DownstreamSpec {
  bool dedupe = false;                   // deduplicate publishes by idempotency key
  std::vector<std::string> faults;       // from kFailBeforeCommit, kCommitNoAnswer, kDelay
  double fault_probability = 0.0;        // chance that a trial arms one downstream fault
  std::string dedupe_by = kDedupeByKey;  // kDedupeByKey or kDedupeByIdempotencyKey
  bool operator==(const DownstreamSpec&) const = default;
};

// Process and downstream faults beyond kills (issue 6, docs/faults.md). A plan draws each per
// attempt with its probability; every point named here must be among the scenario's failpoints
// or its hold_points.
struct PauseSpec {
  std::vector<std::string> points = {};  // empty: never
  int64_t duration_ms = 500;             // real time the attempt stays stopped
  double probability = 0.0;
  bool operator==(const PauseSpec&) const = default;
};

struct OverlapSpec {
  std::vector<std::string> points = {};  // empty: never
  double probability = 0.0;
  int64_t hold_ms = 3000;  // the first instance is held at most this long for the second
  // A point of the second instance where it is held until the first exited and a third
  // instance ran (docs/faults.md, "Three instances"); empty: none.
  std::string second_holds_at = {};
  bool operator==(const OverlapSpec&) const = default;
};

struct BurstSpec {
  int length = 0;  // consecutive POST /publish that fail before commit; 0: never
  double probability = 0.0;
  bool operator==(const BurstSpec&) const = default;
};

// Faults of the proxy between the job and its services (docs/services.md): per attempt, with
// `probability`, one of `points` ("net:db:commit"), one of `actions` that fits it
// (scenario/net_point.h), at a hit from 1 to `max_hit`.
struct NetSpec {
  std::vector<std::string> points = {};  // empty: never
  std::vector<NetAction> actions = {};
  double probability = 0.0;
  int max_hit = 1;
  int64_t ms = 500;  // delay's hold, refuse's window
  bool operator==(const NetSpec&) const = default;
};

// Faults of the servers themselves (docs/services.md, "Server faults"): per attempt, with
// `probability`, at the first hit of one of `points` (job points, as for pauses), one of
// `services` suffers one of `actions`: kill (SIGKILL of all its processes, then a restart on the
// same data and port) or pause (SIGSTOP for duration_ms of real time, then SIGCONT).
struct ServerFaultSpec {
  std::vector<std::string> points = {};  // empty: never
  std::vector<std::string> services = {};
  std::vector<ServerAction> actions = {};
  double probability = 0.0;
  int64_t duration_ms = 1000;  // a pause's length
  bool operator==(const ServerFaultSpec&) const = default;
};

struct FaultSpec {
  PauseSpec pause = {};
  OverlapSpec overlap = {};
  BurstSpec downstream_burst = {};
  NetSpec net = {};
  ServerFaultSpec server = {};
  bool operator==(const FaultSpec&) const = default;
};

// The tables and columns one_row_per_date and amount_matches_source read in check.db
// (docs/scenarios.md, "What the built-in invariants read"); the defaults are the reference
// settle job's schema. An empty count_column compares no count; an empty key_column names a
// row by its rowid.
struct SettlementSchema {
  std::string table = "daily_settlement";
  std::string date_column = "biz_date";
  std::string amount_column = "amount_cents";
  std::string count_column = "order_count";
  std::string key_column = "settle_key";
  std::string source_table = "orders";
  std::string source_date_column = "biz_date";
  std::string source_amount_column = "amount_cents";
  bool operator==(const SettlementSchema&) const = default;
};

// Where the checkers look in the sandbox (paths relative to it).
struct CheckParams {
  std::string db = "settle.db";
  // The JSON state file the job reads on start; empty (the default): the job has none, and
  // nothing reads, captures or prints one.
  std::string state_file;
  SettlementSchema settlement = {};
  bool operator==(const CheckParams&) const = default;
};

// A real server the job talks to (docs/services.md), started by the harness from Debian's
// packages; `kind` is one of scenario/service_kind.h's kServiceKinds.
// `durability`: kDurable (the server's durable settings) or kFast (what a kill -9 of the server
// may lose; docs/services.md, "Server faults").
inline constexpr const char* kDurable = "durable";
inline constexpr const char* kFast = "fast";
struct ServiceSpec {
  std::string kind;
  std::string durability = kDurable;
  bool operator==(const ServiceSpec&) const = default;
};

// A check on a redis service (docs/services.md, "Redis checks"): over the keys matching `keys`
// (a glob, as Redis's KEYS reads it), how many there may be, and whether each must expire.
// `keys` empty: the check is not one.
struct RedisKeyCheck {
  std::string keys;
  std::optional<int64_t> at_least = {};
  std::optional<int64_t> at_most = {};
  bool ttl_required = false;  // "ttl": "required": a matching key with no expiry violates it
  bool operator==(const RedisKeyCheck&) const = default;
};

// A user-defined invariant (docs/scenarios.md, "Your own invariants"): a query over a SQLite
// database of the sandbox, or over a service's database, that returns the violating rows; no
// row means it held. Or a command run on the sandbox, held when it exits 0.
struct SqlCheck {
  std::string db;    // relative to the sandbox, opened as check/checker.h's OpenJobDatabase does
  std::string sql;   // one read-only statement
  std::string says;  // what a returned row means, for the explanation
  bool missing_db_holds = false;  // "missing_db": "held"; by default a missing db is a violation
  // "after_every_crash": true: also checked on what a reader sees after each kill (the sandbox
  // once the persistence model was applied, or the live service, before the retry), not only at
  // the end.
  bool after_every_crash = false;
  // Or, instead of db: the name of a postgres service of the scenario (docs/services.md).
  std::string service = {};
  // Or, on a rabbitmq service, instead of sql: a queue of the trial's vhost and the number of
  // messages it must hold ready at the end (docs/services.md).
  std::string queue = {};
  int64_t messages = 0;
  // Or, instead of sql, on a redis service: which keys, and what of them (no sql then).
  RedisKeyCheck redis = {};
  // More databases of the sandbox the query reads, by the schema name it gives them
  // ("ledger" -> "ledger.db": SELECT ... FROM ledger.entries); each must exist, like db.
  std::map<std::string, std::string> attach = {};
  // Or, instead of db and sql: a command run in the sandbox (docs/scenarios.md, "Command
  // checks"): its argv with {workdir} (the sandbox being checked), {scenario_dir} and {dates}
  // put in place; exit 0 held, any other exit violated, its stdout the explanation.
  std::vector<std::string> command = {};
  int64_t timeout_ms = 0;  // a command's; past it, the command is killed and the check violated
  bool operator==(const SqlCheck&) const = default;
};

struct Scenario {
  std::filesystem::path file;  // where it was read from; errors and reports name it
  std::string name;            // e.g. "publish/execute-then-mark"
  std::string description;
  JobSpec job;
  std::vector<std::string> dates;       // business dates, YYYY-MM-DD
  std::vector<std::string> failpoints;  // named crash points the plan may choose
  // Points where a pause or overlap may hold the job but the plan never kills it: a live
  // lock's holder must stay alive for the overlap to meet it (docs/faults.md).
  std::vector<std::string> hold_points = {};
  int max_occurrence = 1;                      // kill at the 1st..max_occurrence-th hit of a point
  double duplicate_trigger_probability = 0.0;  // the scheduler fires a date twice
  std::vector<PersistenceModel> models = {PersistenceModel::kProcess};
  bool syscall_points = false;  // load the syscall shim

  // Whether attempts run with the shim preloaded: asked for, or needed by a syscall point
  // among the failpoints or hold_points, or by a model other than process.
  bool UsesShim() const;
  // Whether writes_in_sandbox is among its invariants (must hold or expected to break).
  bool ChecksOutsideWrites() const;
  // UsesShim, or ChecksOutsideWrites: the shim is also what notices writes outside the sandbox
  // (docs/syscall-shim.md); loaded for that alone, every syscall point passes one way.
  bool LoadsShim() const { return UsesShim() || ChecksOutsideWrites(); }
  RetryPolicy retry;
  // The policy the job declares for its own in-process retries (reported to the downstream's
  // POST /retry); checked by retry_policy_respected. Absent: the job does not retry itself.
  std::optional<RetryPolicy> job_retry;
  DownstreamSpec downstream;
  FaultSpec faults = {};  // pause, overlap, downstream_burst (docs/faults.md)
  CheckParams check;
  std::map<std::string, ServiceSpec> services = {};  // by name (docs/services.md)
  std::map<std::string, SqlCheck> checks;            // the scenario's own invariants, by name
  std::vector<std::string> must_hold;
  std::vector<std::string> expected_violations;
  int trials = 0;  // 0: the run's --trials decides
  // The share of trials with a planned kill in which every planned kill must fire, else the
  // scenario is "not exercised" (exit 4). None: every planned kill point must fire in at least
  // one trial of the run. docs/scenarios.md.
  std::optional<double> min_exercised = {};

  bool operator==(const Scenario&) const = default;
};

}  // namespace killpoint
