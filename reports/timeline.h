// A counterexample's history laid out for a reader: one lane per attempt in the order the
// attempts ran (an overlap's second instance is drawn on its attempt's lane, its marks
// labelled "i2"), each with markers for what happened in it (failpoint hits, the kill, the
// rollback of a persistence model, publishes, queries, alerts), the virtual retry wait before
// it, how it ended, and the final state the trial left downstream. Pure: built from events.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "history/event.h"
#include "util/name_table.h"

namespace killpoint {

enum class MarkKind {
  kFailpoint,      // a crash point the job passed (and was let through)
  kFailpoints,     // a run of passed crash points, collapsed into one mark
  kKill,           // the harness killed the attempt here
  kRollback,       // a persistence model rolled back what was not durable
  kPublish,        // a delivery downstream (a side effect that cannot be taken back)
  kDuplicate,      // a delivery of a key that had already been delivered
  kPublishFailed,  // a publish that did not commit (injected failure) or was deduplicated
  kQuery,          // the job asked downstream how many deliveries a key had
  kAlert,          // a human was paged
  kTimeout,        // the attempt hung and was killed at its timeout
  kBadRequest,     // the job sent downstream a request it could not understand
  kPause,          // the harness stopped the attempt (SIGSTOP) at a point (docs/faults.md)
  kResume,         // ... and let it go on (SIGCONT)
  kOverlap,        // a second instance of the attempt: started, the first released, its exit
  kRetry,          // the job retried a call in-process (POST /retry, docs/retry.md)
  kLockWait,       // the job waited for a lock another run held (POST /wait, docs/faults.md)
  kCrashCheck,     // the after_every_crash checks on what a reader saw after the kill
  kOutside,        // the attempt changed files outside its sandbox (history/outside_write.h)
  kNetFault,       // the fault proxy in front of a service did its fault, or a server was
                   // killed or paused (docs/services.md)
};
// What a legend calls each kind.
inline constexpr auto kMarkKindNames = MakeNameTable<MarkKind>({
    {MarkKind::kFailpoint, "crash point passed"},
    {MarkKind::kFailpoints, "crash points passed"},
    {MarkKind::kKill, "kill"},
    {MarkKind::kRollback, "rollback"},
    {MarkKind::kPublish, "publish"},
    {MarkKind::kDuplicate, "duplicate delivery"},
    {MarkKind::kPublishFailed, "publish not delivered"},
    {MarkKind::kQuery, "query"},
    {MarkKind::kAlert, "alert"},
    {MarkKind::kTimeout, "timeout"},
    {MarkKind::kBadRequest, "bad request"},
    {MarkKind::kPause, "pause (SIGSTOP)"},
    {MarkKind::kResume, "resume (SIGCONT)"},
    {MarkKind::kOverlap, "second instance"},
    {MarkKind::kRetry, "in-process retry"},
    {MarkKind::kLockWait, "waited for a lock"},
    {MarkKind::kCrashCheck, "checked after the crash"},
    {MarkKind::kOutside, "wrote outside the sandbox"},
    {MarkKind::kNetFault, "network fault, server kill or pause"},
});
static_assert(kMarkKindNames.Unique());
const char* ToString(MarkKind k);

struct Mark {
  MarkKind kind = MarkKind::kFailpoint;
  std::string label;   // short: the point, "delivery 3", "key"; drawn under the mark
  std::string detail;  // one line with everything known; the mark's tooltip
  bool operator==(const Mark&) const = default;
};

struct Lane {
  std::string biz_date;
  int trigger = 0;
  int attempt = 0;
  bool final_pass = false;      // a fault-free firing after the planned ones
  int64_t start_ms = 0;         // virtual clock at the spawn
  int64_t wait_before_ms = -1;  // the retry wait that preceded this attempt; -1: none
  std::vector<Mark> marks;
  std::string outcome;  // "exit 0", "killed (signal 9)", "timed out", ...
  bool succeeded = false;
  bool gave_up = false;  // the scheduler gave up on the date after this attempt
  std::string stderr_tail;

  std::string Title() const;  // "2026-11-01 #1 a2"
};

struct Timeline {
  std::vector<Lane> lanes;
  std::vector<std::string> notes;        // setup, final pass, anything outside an attempt
  std::vector<std::string> final_state;  // per date/key: deliveries, alerts, last outcome
};

// What the scenario's invariants count as a duplicate delivery. Always a second delivery of a
// key; with duplicates_per_date (no_double_publish is checked: it counts per date, whatever
// the keys), also a second delivery for a date under another key.
struct TimelineOptions {
  bool duplicates_per_date = false;
};
// From the names of the invariants the scenario checks (either list may hold them).
TimelineOptions TimelineOptionsFor(const std::vector<std::string>& invariants,
                                   const std::vector<std::string>& more = {});

// Runs of more than this many consecutive passed crash points are collapsed into one mark.
inline constexpr size_t kMaxVisibleFailpoints = 4;

Timeline BuildTimeline(const std::vector<Event>& events, const TimelineOptions& options = {});

}  // namespace killpoint
