// One entry of a trial's history: the only input the checkers and reports need.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

namespace killpoint {

// Event types. Attempt events carry biz_date, trigger and attempt; downstream events carry
// the attempt that was running when the request arrived.
namespace event {
inline constexpr const char* kTrialStart = "trial_start";  // data: plan
inline constexpr const char* kSetup = "setup";             // data: exit_code, stderr
inline constexpr const char* kSpawn = "spawn";             // data: pid, argv, fault
inline constexpr const char* kFailpoint = "failpoint";     // data: point, hit, pid
// The syscall points an attempt passed one way (protocol v1.2: not armed, never answered),
// as counts by name, recorded once the job has exited: their arrival interleaves with other
// events by chance, their counts do not. data: points {name: count}
inline constexpr const char* kPointsPassed = "points_passed";
// What an attempt's caps on recorded points left out (run/attempt_state.h, kMaxPointNames):
// data: hits (how many went unrecorded), example (the first name left out), max_names,
// max_events.
inline constexpr const char* kPointsDropped = "points_dropped";
// The files an attempt created, changed or removed outside its sandbox (history/outside_write.h),
// recorded once the job has exited, sorted by path. data: writes [{path, kind, ops}]
inline constexpr const char* kOutsideWrites = "outside_writes";
// The system calls of an attempt that the supervisor refused (protocol v1.6: io_uring_setup),
// whose effects it could not have followed, recorded once the job has exited. data: calls [name]
inline constexpr const char* kRefused = "refused";
// data: point, hit, when (before, after, mid: what happened), model; unseen (docs/syscall-shim.md);
// a planned mid kill of a write also bytes, offset, and kept (cut) or planned and uncut (the
// kill fell before it: run/mid_cut.h)
inline constexpr const char* kKill = "kill";
inline constexpr const char* kExit = "exit";          // data: code or signal, stderr
inline constexpr const char* kRollback = "rollback";  // data: model, changes
// The scenario's own checks marked after_every_crash, run on the sandbox after a kill and its
// persistence model (or on the live service), before the retry. data: point, hit, model,
// verdicts [Verdict]
inline constexpr const char* kCrashCheck = "crash_check";
inline constexpr const char* kTimeout = "timeout";  // data: timeout_ms
// data: delay_ms, next_attempt, reason (backoff, rate_limit or breaker_open; docs/retry.md)
inline constexpr const char* kRetryWait = "retry_wait";
// Retry strategies (docs/retry.md). breaker: the scheduler's circuit breaker changed state,
// data: from, to. non_retryable: an attempt exited with a non-retryable code, data: code.
// job_retry: the job reported an in-process retry (POST /retry), data: key, attempt,
// delay_ms, backoff_ms, at_ms, breaker.
inline constexpr const char* kBreaker = "breaker";
inline constexpr const char* kNonRetryable = "non_retryable";
inline constexpr const char* kJobRetry = "job_retry";
// job_wait: the job waited on the real clock for what another run held, a lock or a lease
// (POST /wait), data: key (what), ms, acquired, held_by (when known). Real time: left out of a
// replay's comparison; kp-bare-loop waits it out in the job's place (docs/performance.md).
inline constexpr const char* kJobWait = "job_wait";
inline constexpr const char* kGiveUp = "give_up";          // data: attempts
inline constexpr const char* kFinalPass = "final_pass";    // data: biz_dates
inline constexpr const char* kPublish = "publish";         // data: key, delivery_id, ...
inline constexpr const char* kQuery = "query";             // data: key, count
inline constexpr const char* kAlert = "alert";             // data: key, reason
inline constexpr const char* kBadRequest = "bad_request";  // data: path, reason
// Connections to the control channel during the attempt that were refused for their peer
// (another user, or a HIT from a peer gone before it could be told). data: connections.
inline constexpr const char* kPeerRefused = "peer_refused";
inline constexpr const char* kTrialEnd = "trial_end";  // data: elapsed_ms
// Pauses and overlaps (docs/faults.md). The second instance of an overlap runs in the same
// attempt: its spawn, exit, failpoint and points_passed events carry data.instance = 2, and
// downstream requests data.instance when known (absent: the first instance, or no overlap).
inline constexpr const char* kPause = "pause";      // data: point, hit, duration_ms
inline constexpr const char* kResume = "resume";    // data: point
inline constexpr const char* kOverlap = "overlap";  // data: point, hold_ms
// The first instance is let go of: data: point, second_exited (before hold_ms ran out), and
// with second_holds_at second_held.
inline constexpr const char* kOverlapEnd = "overlap_end";
// Three instances (docs/faults.md): the second is held at second_holds_at (data: point,
// instance 2), and let go of once the first ended and a third instance ran (data: point,
// third_exited before hold_ms ran out, instance 2). The third's spawn, exit, failpoint and
// points_passed events carry data.instance = 3.
inline constexpr const char* kSecondHeld = "second_held";
inline constexpr const char* kSecondRelease = "second_release";
// The proxy in front of a service did its planned fault (docs/services.md): data: point,
// action, hit, ms (delay, refuse).
inline constexpr const char* kNetFault = "net_fault";
// A server fault (docs/services.md, "Server faults"): data: service, kind, durability, action
// (kill or pause), point, hit; a kill's also before (rows or keys before it), lost (how many
// of them the restarted server lacks), missing (up to 5 of them), restart_ms, error (a snapshot
// that could not be read); a pause's duration_ms. server_resume: the paused server goes on,
// data: service, point, paused_ms.
inline constexpr const char* kServerFault = "server_fault";
inline constexpr const char* kServerResume = "server_resume";
}  // namespace event

struct Event {
  int64_t seq = 0;   // position in the trial, from 0
  int64_t t_ms = 0;  // virtual clock: starts at 0, advanced only by retry waits
  std::string type;
  std::string biz_date;  // empty when not tied to a date
  int trigger = 0;       // 0 when not tied to a run
  int attempt = 0;       // 0 when not tied to an attempt; the final pass counts on
  nlohmann::json data = nlohmann::json::object();

  bool operator==(const Event&) const = default;
};

// Which instance of the attempt an event belongs to: data.instance, 1 when absent; 0 for a
// downstream request that arrived while both instances ran and that the job did not label.
int InstanceOf(const Event& e);

void to_json(nlohmann::json& j, const Event& e);
// Throws nlohmann::json::exception on a missing field or an out-of-range number.
void from_json(const nlohmann::json& j, Event& e);

// The "trial" of one line of a history journal (history_log.h); throws like from_json.
int TrialOfJournalLine(const nlohmann::json& j);
std::ostream& operator<<(std::ostream& os, const Event& e);

}  // namespace killpoint
