// Typed views of the data of the events the checkers and the reports read (event.h lists
// every kind and its fields). A view reads leniently, as the readers it replaced did: a
// missing field, or one of the wrong type (a damaged or hand-edited history), reads as the
// default written beside it, never as an exception, so that a history still gets its
// verdicts and its timeline.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "history/event.h"
#include "scenario/persistence_model.h"

namespace killpoint {

// One field of an event's data: its value when it has the type asked for, else `otherwise`.
// An integer that does not fit int64_t (or a float) counts as the wrong type.
std::string TextField(const Event& e, const char* key, const std::string& otherwise = "");
int64_t IntField(const Event& e, const char* key, int64_t otherwise = 0);
bool FlagField(const Event& e, const char* key, bool otherwise = false);

// exit: how an attempt's process (or an overlap's second instance) ended.
struct ExitData {
  int64_t code = -1;               // the shell's code: 128 + signo when a signal ended it
  std::optional<int64_t> signal;   // the signal that ended it, if one did
  std::string stderr_tail;         // the last lines it wrote to stderr
  bool killed_by_harness = false;  // a planned kill or a timeout, not the job's own doing

  // Exited by itself with code 0.
  bool Succeeded() const { return !signal && code == 0; }
  // The code it exited with, -1 when a signal ended it.
  int64_t ExitCode() const { return signal ? -1 : code; }
};
ExitData ExitOf(const Event& e);

// kill: the harness killed the attempt at a crash point.
struct KillData {
  std::string point;            // "" when missing
  int64_t hit = 0;              // which hit of the point; 0 when missing
  std::string when = "before";  // before, after or mid the operation
  // The model applied after it: process when missing (as in plans); nullopt for a name this
  // killpoint does not know.
  std::optional<PersistenceModel> model = PersistenceModel::kProcess;
  std::string unseen;  // where the shim noticed a write it had not seen; "" if none
  // A planned mid kill of a write (run/mid_cut.h): the write's size and file offset, when the
  // interception sent them, and the bytes of it that reached the file (when = "mid"); or, when
  // it could not be cut and the kill fell before it (when = "before"), the plan's moment
  // ("mid") and why (`uncut`: one_page, no_offset, too_small, no_size, failed). Histories
  // written before this carry none of them.
  std::optional<int64_t> bytes;
  std::optional<int64_t> offset;
  std::optional<int64_t> kept;
  std::string planned;
  std::string uncut;
};
KillData KillOf(const Event& e);

// failpoint: the attempt passed a crash point (named, or of the syscall shim).
struct FailpointData {
  std::string point;
  int64_t hit = 0;
  int64_t pid = 0;
  std::optional<int64_t> bytes;  // a write's size, when the shim reported it
  std::string unseen;
};
FailpointData FailpointOf(const Event& e);

// publish: the downstream received POST /publish.
struct PublishData {
  std::string key;
  std::string biz_date;          // the date in the request ("" when none)
  bool committed = false;        // the downstream kept it
  bool deduplicated = false;     // refused as a repeat of a delivered idempotency key
  int64_t delivery_id = 0;       // of a committed publish
  std::string idempotency_key;   // the request's header, "" when none
  std::string fault;             // the downstream fault injected into it, "" when none
  std::optional<int64_t> burst;  // its rank in a downstream burst, when it was one of it
};
PublishData PublishOf(const Event& e);

// retry_wait: the scheduler waited before an attempt (docs/retry.md).
struct RetryWaitData {
  int64_t delay_ms = 0;
  int64_t next_attempt = 0;
  std::string reason = "backoff";  // backoff, rate_limit or breaker_open
};
RetryWaitData RetryWaitOf(const Event& e);

// breaker: the scheduler's circuit breaker changed state.
struct BreakerData {
  std::string from;
  std::string to;
};
BreakerData BreakerOf(const Event& e);

// job_retry: the job reported an in-process retry (POST /retry).
struct JobRetryData {
  std::string key;
  int64_t attempt = 0;
  int64_t backoff_ms = -1;
  int64_t delay_ms = -1;
  int64_t at_ms = 0;
  std::string breaker = "closed";
};
JobRetryData JobRetryOf(const Event& e);

// crash_check: the scenario's after_every_crash checks on the sandbox (or services) a kill left.
struct CrashCheckData {
  std::string point = "?";
  int64_t hit = 1;
  std::optional<PersistenceModel> model;              // nullopt when missing or unknown
  nlohmann::json verdicts = nlohmann::json::array();  // [Verdict]; an array, maybe empty
};
CrashCheckData CrashCheckOf(const Event& e);

}  // namespace killpoint
