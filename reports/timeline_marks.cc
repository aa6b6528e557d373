#include "reports/timeline_marks.h"

#include <fmt/format.h>

#include "plan/crash_point.h"
#include "run/mid_cut.h"
#include "scenario/net_point.h"
#include "util/printable.h"

namespace killpoint {
namespace {

// A write the interception did not see (unseen: where it noticed the change).
std::string UnseenNote(const std::string& unseen) {
  if (unseen.empty()) return "";
  return ", written without a seen write (stdio, a raw syscall): killpoint noticed it at " + unseen;
}

// A planned mid kill's write, inside the kill's parentheses: ", 10000 bytes at offset 100, the
// first 3996 written, up to the page boundary at 4096", or ", 118 bytes at offset 0 not
// written" when it fell before. Empty for a kill that carries no size (any other kill, and
// histories of before run/mid_cut.h: the builder says it from the point's own event).
std::string CutNote(const event::Kill& k) {
  if (!k.bytes) return "";
  std::string at = k.offset ? fmt::format(" at offset {}", *k.offset) : "";
  if (!k.kept) return fmt::format(", {} bytes{} not written", *k.bytes, at);
  std::string note = fmt::format(", {} bytes{}, the first {} written", *k.bytes, at, *k.kept);
  if (k.offset && k.model == PersistenceModel::kProcess && (*k.offset + *k.kept) % kPageBytes == 0)
    note += fmt::format(", up to the page boundary at {}", *k.offset + *k.kept);
  return note;
}

// Why a planned mid kill fell before its write (run/mid_cut.h).
std::string UncutNote(const event::Kill& k) {
  if (k.uncut.empty()) return "";
  std::string why =
      k.uncut == kUncutOnePage
          ? "the write lies within one page of the file, and a kill -9 stops a write only "
            "between pages"
      : k.uncut == kUncutNoOffset
          ? "the interception did not say where in the file the write lands (a shim or "
            "supervisor older than protocol v1.7), so no page boundary was known to cut it at"
      : k.uncut == kUncutTooSmall ? "a write of fewer than 2 bytes has no middle"
      : k.uncut == kUncutNoSize   ? "the write's size is unknown"
      : k.uncut == kUncutFailed   ? "the write failed, none of its bytes reached the file"
                                  : k.uncut;
  return fmt::format(", planned {}: {}", NameOf(k.planned.value_or(Moment::kMid)), why);
}

// One verdict of a crash check (check/verdict.h), read as leniently as an event's data.
struct CrashVerdict {
  std::string invariant = "?";
  bool held = true;
  std::string explanation;
  static constexpr auto kFields =
      std::tuple{Field("invariant", &CrashVerdict::invariant), Field("held", &CrashVerdict::held),
                 Field("explanation", &CrashVerdict::explanation)};
};

}  // namespace

std::string Ms(int64_t ms) {
  return ms % 1000 == 0 ? fmt::format("{}s", ms / 1000) : fmt::format("{}ms", ms);
}

std::string HowItEnded(const event::Exit& exit) {
  return exit.signal ? fmt::format("killed (signal {})", *exit.signal)
                     : fmt::format("exit {}", exit.code);
}

std::optional<Mark> MarkFor(const event::Pause& p) {
  return Mark{
      MarkKind::kPause, "pause " + Ms(p.duration_ms),
      fmt::format("SIGSTOP at {} (hit {}) for {} of real time", p.point, p.hit, Ms(p.duration_ms))};
}

std::optional<Mark> MarkFor(const event::Resume& r) {
  return Mark{MarkKind::kResume, "resume", fmt::format("SIGCONT: goes on from {}", r.point)};
}

std::optional<Mark> MarkFor(const event::Overlap& o) {
  return Mark{MarkKind::kOverlap, "i2 start",
              fmt::format("held at {}; a second instance of the date starts (held at most {})",
                          o.point, Ms(o.hold_ms))};
}

std::optional<Mark> MarkFor(const event::OverlapEnd& o) {
  return Mark{
      MarkKind::kOverlap, "release",
      fmt::format("released from {}: {}", o.point,
                  o.second_exited                 ? "the second instance had exited"
                  : o.second_held.value_or(false) ? "the second instance is held"
                                                  : "the hold ran out, both instances run")};
}

std::optional<Mark> MarkFor(const event::Spawn& s) {
  if (s.instance.value_or(1) != 3) return std::nullopt;
  return Mark{MarkKind::kOverlap, "start",  // docs/faults.md, "Three instances"
              "a third instance of the date starts: the first has ended, the second is held"};
}

std::optional<Mark> MarkFor(const event::SecondHeld& s) {
  return Mark{MarkKind::kOverlap, "held",
              fmt::format("held at {} until the first ended and a third instance ran", s.point)};
}

std::optional<Mark> MarkFor(const event::SecondRelease& s) {
  return Mark{
      MarkKind::kOverlap, "release",
      fmt::format("released from {}: {}", s.point,
                  s.third_exited ? "the third instance had exited" : "the hold ran out, both run")};
}

std::optional<Mark> MarkFor(const event::NetFault& n) {  // docs/services.md
  std::string ms = n.ms ? " " + Ms(*n.ms) : "";
  return Mark{
      MarkKind::kNetFault, std::string(NameOf(n.action)) + ms,
      fmt::format("the proxy did {}{} at {} (hit {})", NameOf(n.action), ms, n.point, n.hit)};
}

std::optional<Mark> MarkFor(const event::ServerFault& f) {  // docs/services.md, "Server faults"
  std::string lost = f.lost ? fmt::format(", {} of {} lost", *f.lost, f.before.value_or(0)) : "";
  return Mark{MarkKind::kNetFault, std::string(NameOf(f.action)) + " " + f.service,
              fmt::format("the server of {} ({}) was {} at {}{}", f.service, f.kind,
                          f.action == ServerAction::kKill ? "killed" : "paused", f.point, lost)};
}

std::optional<Mark> MarkFor(const event::Exit& x) {
  if (x.instance.value_or(1) < 2) return std::nullopt;  // the lane's outcome says it
  std::string how = HowItEnded(x);
  const std::string err = LinesJoined(x.stderr_tail);
  return Mark{MarkKind::kOverlap, how, "ended: " + how + (err.empty() ? "" : " | stderr: " + err)};
}

std::optional<Mark> MarkFor(const event::Failpoint& f) {
  std::string bytes = f.bytes ? fmt::format(", {} bytes", *f.bytes) : "";
  return Mark{MarkKind::kFailpoint, f.point,
              fmt::format("passed {} (hit {}{}){}", f.point, f.hit, bytes, UnseenNote(f.unseen))};
}

// Syscall points the interception reported one way, by count.
std::optional<Mark> MarkFor(const event::PointsPassed& p) {
  int64_t total = 0;
  std::string names;
  for (const auto& [name, count] : p.points) {
    total += count;
    names += fmt::format("{}{} x{}", names.empty() ? "" : ", ", name, count);
  }
  std::string unseen;
  for (const auto& [name, at] : p.unseen)
    unseen += fmt::format("{}{} (noticed at {})", unseen.empty() ? "" : ", ", name, at);
  const char* plural = total == 1 ? "" : "s";
  return Mark{
      MarkKind::kFailpoints, fmt::format("{} point{}", total, plural),
      // Counted when the attempt ended, so shown after its kill: not "passed" after it.
      fmt::format("this attempt passed {} syscall point{} not armed (counted at its end, "
                  "in no order): {}{}",
                  total, plural, names,
                  unseen.empty()
                      ? ""
                      : "; written without a seen write (stdio, a raw syscall): " + unseen)};
}

// Beyond the attempt's caps (run/attempt_state.h).
std::optional<Mark> MarkFor(const event::PointsDropped& p) {
  return Mark{MarkKind::kFailpoints, fmt::format("{} not recorded", p.hits),
              fmt::format("{} more point hits not recorded, from {} on: the history keeps an "
                          "attempt's first {} point names and {} point events",
                          p.hits, p.example, p.max_names, p.max_events)};
}

std::optional<Mark> MarkFor(const event::Kill& k) {
  // Only a syscall point and a command to a service (before it goes, after its answer) have a
  // before and an after; the others are a moment.
  std::string when =
      IsSyscallPoint(k.point) || IsNetCommandPoint(k.point) ? std::string(NameOf(k.when)) : "at";
  return Mark{MarkKind::kKill, k.point,
              fmt::format("kill -9 {} {} (hit {}{}){}{}, then the {} model", when, k.point, k.hit,
                          CutNote(k), UnseenNote(k.unseen), UncutNote(k),
                          k.model ? NameOf(*k.model) : "?")};
}

std::optional<Mark> MarkFor(const event::Rollback& r) {
  std::string model(r.model ? NameOf(*r.model) : "?");
  return Mark{MarkKind::kRollback, model,
              fmt::format("{} model rolled back: {}", model, nlohmann::json(r.changes).dump())};
}

// "a reader saw: x held; y VIOLATED: why"
std::optional<Mark> MarkFor(const event::CrashCheck& c) {
  std::string seen;
  bool violated = false;
  for (const auto& entry : c.verdicts) {
    if (!entry.is_object()) continue;
    CrashVerdict v = Read<CrashVerdict>(entry);
    violated = violated || !v.held;
    seen += fmt::format("{}{} {}", seen.empty() ? "" : "; ", v.invariant,
                        v.held ? "held" : "VIOLATED: " + v.explanation);
  }
  return Mark{MarkKind::kCrashCheck, violated ? "reader: broken" : "reader: ok",
              "after the crash, a reader saw: " + seen};
}

std::optional<Mark> MarkFor(const event::Timeout& t) {
  return Mark{MarkKind::kTimeout, "timeout",
              fmt::format("hung; killed at its {} timeout", Ms(t.timeout_ms))};
}

// "wrote outside its sandbox: /tmp/a (open), ..."
std::optional<Mark> MarkFor(const event::OutsideWrites& o) {
  std::string paths;
  for (const OutsideWrite& w : o.writes) {
    std::string ops;
    for (const std::string& op : w.ops) ops += (ops.empty() ? "" : ", ") + op;
    paths += fmt::format("{}{} ({})", paths.empty() ? "" : "; ", w.path, ops);
  }
  return Mark{
      MarkKind::kOutside, fmt::format("{} outside", o.writes.size()),
      "wrote outside its sandbox (no persistence model applies, the next trial sees it): " + paths};
}

std::optional<Mark> MarkFor(const event::Query& q) {
  return Mark{MarkKind::kQuery, q.key, fmt::format("query {}: {} deliveries", q.key, q.count)};
}

std::optional<Mark> MarkFor(const event::Alert& a) {
  return Mark{MarkKind::kAlert, a.key, fmt::format("alert {}: {}", a.key, a.reason)};
}

std::optional<Mark> MarkFor(const event::JobRetry& r) {
  return Mark{MarkKind::kRetry, fmt::format("retry {}", r.attempt),
              fmt::format("in-process retry {} of {} after {} (backoff {}, breaker {})", r.attempt,
                          r.key, Ms(r.delay_ms), Ms(r.backoff_ms), r.breaker)};
}

std::optional<Mark> MarkFor(const event::JobWait& w) {
  std::string by = w.held_by.empty() ? "" : " held by " + w.held_by;
  return Mark{MarkKind::kLockWait, "wait " + Ms(w.ms),
              fmt::format("waited {} for {}{}: {}", Ms(w.ms), w.key, by,
                          w.acquired ? "took it" : "gave up")};
}

std::optional<Mark> MarkFor(const event::BadRequest& b) {
  return Mark{MarkKind::kBadRequest, b.path, fmt::format("bad request {}: {}", b.path, b.reason)};
}

}  // namespace killpoint
