#include "reports/timeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

#include "history/event_data.h"
#include "plan/crash_point.h"
#include "run/mid_cut.h"
#include "scenario/net_point.h"
#include "util/printable.h"

namespace killpoint {
namespace {

using Json = nlohmann::json;

std::string Str(const Json& data, const char* key) {
  auto it = data.find(key);
  if (it == data.end() || it->is_null()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

int64_t Int(const Json& data, const char* key, int64_t otherwise = 0) {
  auto it = data.find(key);
  return it != data.end() && it->is_number() ? it->get<int64_t>() : otherwise;
}

// "exit 3", "killed (signal 9)".
std::string HowItEnded(const ExitData& exit) {
  return exit.signal ? fmt::format("killed (signal {})", *exit.signal)
                     : fmt::format("exit {}", exit.code);
}

// "once", "twice", "3 times".
std::string Times(size_t n) {
  return n == 1 ? "once" : n == 2 ? "twice" : fmt::format("{} times", n);
}

// "key a" or "2 keys: a, b" (each key once).
std::string Keys(const std::vector<std::string>& keys) {
  std::vector<std::string> distinct;
  for (const auto& k : keys) {
    if (std::find(distinct.begin(), distinct.end(), k) == distinct.end()) distinct.push_back(k);
  }
  std::string list;
  for (const auto& k : distinct) list += (list.empty() ? "" : ", ") + k;
  return distinct.size() == 1 ? "key " + list : fmt::format("{} keys: {}", distinct.size(), list);
}

std::string Ms(int64_t ms) {
  return ms % 1000 == 0 ? fmt::format("{}s", ms / 1000) : fmt::format("{}ms", ms);
}

using LaneKey = std::tuple<std::string, int, int>;  // biz_date, trigger, attempt

// Folds events into lanes, marks and notes, one event at a time.
class Builder {
 public:
  explicit Builder(const TimelineOptions& options) : options_(options) {}

  void Add(const Event& e) {
    if (e.type == event::kSpawn && InstanceOf(e) == 2) return;          // drawn by its overlap mark
    if (e.type == event::kSpawn && InstanceOf(e) < 2) return Spawn(e);  // a third: a mark
    if (e.type == event::kRetryWait) return Wait(e);
    if (e.type == event::kBreaker) {
      BreakerData b = BreakerOf(e);
      notes_.push_back(fmt::format("circuit breaker {} -> {} at {}", b.from, b.to, Ms(e.t_ms)));
      return;
    }
    if (e.type == event::kNonRetryable) {
      notes_.push_back(fmt::format("{}#{}: exit {} is not retryable, no attempt after {}",
                                   e.biz_date, e.trigger, Int(e.data, "code"), e.attempt));
      return;
    }
    if (e.type == event::kFinalPass) return FinalPass(e);
    if (e.type == event::kSetup) {
      // One labelled line for job.setup, however many files it made (its crash points are
      // the setup's own, recorded before any attempt): issue 33 found 33 bare lines here.
      std::string passed;
      for (size_t i = 0; i < setup_points_.size() && i < kSetupPointsNamed; ++i)
        passed += (i == 0 ? "" : ", ") + setup_points_[i];
      if (setup_points_.size() > kSetupPointsNamed) passed += ", ...";
      notes_.push_back(fmt::format(
          "job.setup exited {}{}{}", Int(e.data, "exit_code"),
          setup_points_.empty() ? ""
                                : fmt::format(", passing {} crash points of its own ({})",
                                              setup_points_.size(), passed),
          Str(e.data, "stderr").empty() ? "" : ": " + Str(e.data, "stderr")));
      setup_points_.clear();
      return;
    }
    if (e.type == event::kFailpoint && e.biz_date.empty()) {  // job.setup's, before its end
      setup_points_.push_back(Str(e.data, "point"));
      return;
    }
    if (e.type == event::kTrialStart || e.type == event::kTrialEnd) return;
    Lane* lane = LaneOf(e);
    if (e.type == event::kPublish) return Publish(e, lane);
    if (e.type == event::kAlert) {
      alerts_[Str(e.data, "key")].push_back(Str(e.data, "reason"));
      Date(Str(e.data, "key"), Str(e.data, "biz_date"));
    }
    if (e.type == event::kExit && lane && InstanceOf(e) < 2) return Exit(e, *lane);
    if (e.type == event::kGiveUp && lane) {
      lane->gave_up = true;
      return;
    }
    if (auto mark = MarkOf(e)) Place(e, lane, *mark);
  }

  Timeline Finish() {
    for (Lane& lane : timeline_.lanes) Collapse(lane.marks);
    FinalState();
    timeline_.notes.insert(timeline_.notes.begin(), notes_.begin(), notes_.end());
    return std::move(timeline_);
  }

 private:
  void Spawn(const Event& e) {
    Lane lane;
    lane.biz_date = e.biz_date;
    lane.trigger = e.trigger;
    lane.attempt = e.attempt;
    lane.final_pass = in_final_pass_;
    lane.start_ms = e.t_ms;
    auto wait = waits_.find({e.biz_date, e.trigger});
    if (wait != waits_.end()) {
      if (e.attempt > 1) lane.wait_before_ms = wait->second;
      waits_.erase(wait);
    }
    lanes_[{e.biz_date, e.trigger, e.attempt}] = timeline_.lanes.size();
    timeline_.lanes.push_back(std::move(lane));
    if (std::find(dates_.begin(), dates_.end(), e.biz_date) == dates_.end())
      dates_.push_back(e.biz_date);
  }

  // The waits before an attempt add up (backoff, then a rate limit or an open breaker).
  void Wait(const Event& e) {
    RetryWaitData w = RetryWaitOf(e);
    waits_[{e.biz_date, e.trigger}] += w.delay_ms;
    if (w.reason != "backoff") {
      notes_.push_back(fmt::format("{}#{} a{} waited {} ({})", e.biz_date, e.trigger,
                                   w.next_attempt, Ms(w.delay_ms), w.reason));
    }
  }

  void FinalPass(const Event& e) {
    in_final_pass_ = true;
    std::string dates;
    auto it = e.data.find("biz_dates");
    if (it != e.data.end() && it->is_array()) {
      for (const auto& d : *it) dates += (dates.empty() ? "" : ", ") + d.dump();
    }
    notes_.push_back(dates.empty() ? "final pass: every date had succeeded, nothing to rerun"
                                   : "final pass (faults stopped) reran: " + dates);
  }

  Lane* LaneOf(const Event& e) {
    auto it = lanes_.find({e.biz_date, e.trigger, e.attempt});
    return it == lanes_.end() ? nullptr : &timeline_.lanes[it->second];
  }

  void Exit(const Event& e, Lane& lane) {
    ExitData exit = ExitOf(e);
    lane.succeeded = exit.Succeeded();
    if (lane.outcome.empty()) lane.outcome = HowItEnded(exit);
    lane.stderr_tail = exit.stderr_tail;
  }

  void Publish(const Event& e, Lane* lane) {
    called_downstream_ = true;
    PublishData p = PublishOf(e);
    const std::string& key = p.key;
    Date(key, p.biz_date);
    Mark m{MarkKind::kPublish, key, ""};
    if (!p.committed) {
      m.kind = MarkKind::kPublishFailed;
      const char* why = p.deduplicated ? "deduplicated (not delivered again)" : "not committed";
      m.detail = fmt::format("publish {}: {}", key, why);
    } else {
      std::vector<int64_t>& ids = deliveries_[key];
      ids.push_back(p.delivery_id);
      // no_double_publish counts deliveries per date, whatever their keys: a second one for
      // the date is a duplicate even under a new key.
      std::string date = p.biz_date.empty() ? e.biz_date : p.biz_date;
      std::vector<std::string>& date_keys = date_deliveries_[date];
      date_keys.push_back(key);
      bool date_twice = options_.duplicates_per_date && date_keys.size() > 1;
      m.kind = ids.size() > 1 || date_twice ? MarkKind::kDuplicate : MarkKind::kPublish;
      m.label = fmt::format("delivery {}", ids.back());
      m.detail = fmt::format("publish {}: delivery {}", key, ids.back());
      if (ids.size() > 1) {
        m.detail += fmt::format(" (delivery number {} of this key)", ids.size());
      } else if (date_twice) {
        m.detail += fmt::format(" (delivery number {} for {}, under another key: {})",
                                date_keys.size(), date, date_keys.front());
      }
    }
    if (!p.fault.empty()) m.detail += ", injected fault: " + p.fault;
    if (p.burst) m.detail += fmt::format(" (burst, failure {})", *p.burst);
    Attribute(e, m);
    Place(e, lane, m);
  }

  // An event of an overlap's second (third) instance is marked on its attempt's lane as
  // "i2 ..." ("i3 ...").
  std::optional<Mark> MarkOf(const Event& e) const {
    std::optional<Mark> mark = FirstInstanceMarkOf(e);
    if (mark) Attribute(e, *mark);
    return mark;
  }

  // Instance 0: a downstream request while both instances ran, which the job did not label.
  static void Attribute(const Event& e, Mark& mark) {
    int instance = InstanceOf(e);
    if (instance == 1) return;
    mark.label = (instance >= 2 ? fmt::format("i{} ", instance) : "i? ") + mark.label;
    mark.detail = (instance >= 2 ? fmt::format("instance {}: ", instance) : "either instance: ") +
                  mark.detail;
  }

  // Pauses, overlaps (docs/faults.md), network and server faults; nullopt for other events.
  static std::optional<Mark> ProcessFaultMarkOf(const Event& e) {
    const Json& d = e.data;
    if (e.type == event::kPause) {
      return Mark{MarkKind::kPause, "pause " + Ms(Int(d, "duration_ms")),
                  fmt::format("SIGSTOP at {} (hit {}) for {} of real time", Str(d, "point"),
                              Int(d, "hit"), Ms(Int(d, "duration_ms")))};
    }
    if (e.type == event::kResume) {
      return Mark{MarkKind::kResume, "resume",
                  fmt::format("SIGCONT: goes on from {}", Str(d, "point"))};
    }
    if (e.type == event::kOverlap) {
      return Mark{MarkKind::kOverlap, "i2 start",
                  fmt::format("held at {}; a second instance of the date starts (held at most {})",
                              Str(d, "point"), Ms(Int(d, "hold_ms")))};
    }
    if (e.type == event::kOverlapEnd) {
      bool exited = FlagField(e, "second_exited");
      return Mark{
          MarkKind::kOverlap, "release",
          fmt::format("released from {}: {}", Str(d, "point"),
                      exited                        ? "the second instance had exited"
                      : FlagField(e, "second_held") ? "the second instance is held"
                                                    : "the hold ran out, both instances run")};
    }
    if (e.type == event::kSpawn && InstanceOf(e) == 3) {  // docs/faults.md, "Three instances"
      return Mark{MarkKind::kOverlap, "start",
                  "a third instance of the date starts: the first has ended, the second is held"};
    }
    if (e.type == event::kSecondHeld) {
      return Mark{MarkKind::kOverlap, "held",
                  fmt::format("held at {} until the first ended and a third instance ran",
                              Str(d, "point"))};
    }
    if (e.type == event::kSecondRelease) {
      return Mark{MarkKind::kOverlap, "release",
                  fmt::format("released from {}: {}", Str(d, "point"),
                              FlagField(e, "third_exited") ? "the third instance had exited"
                                                           : "the hold ran out, both run")};
    }
    if (e.type == event::kNetFault) {  // docs/services.md
      std::string ms = d.contains("ms") ? " " + Ms(Int(d, "ms")) : "";
      return Mark{MarkKind::kNetFault, Str(d, "action") + ms,
                  fmt::format("the proxy did {}{} at {} (hit {})", Str(d, "action"), ms,
                              Str(d, "point"), Int(d, "hit"))};
    }
    if (e.type == event::kServerFault) {  // docs/services.md, "Server faults": a cut line too
      std::string what = Str(d, "action") + " " + Str(d, "service");
      std::string lost = d.contains("lost")
                             ? fmt::format(", {} of {} lost", Int(d, "lost"), Int(d, "before"))
                             : "";
      return Mark{
          MarkKind::kNetFault, what,
          fmt::format("the server of {} ({}) was {} at {}{}", Str(d, "service"), Str(d, "kind"),
                      Str(d, "action") == "kill" ? "killed" : "paused", Str(d, "point"), lost)};
    }
    if (e.type == event::kExit && InstanceOf(e) >= 2) {
      ExitData exit = ExitOf(e);
      std::string how = HowItEnded(exit);
      const std::string err = LinesJoined(exit.stderr_tail);
      return Mark{MarkKind::kOverlap, how,
                  "ended: " + how + (err.empty() ? "" : " | stderr: " + err)};
    }
    return std::nullopt;
  }

  // A write the shim did not see (data.unseen: where it noticed the change).
  static std::string UnseenNote(const std::string& unseen) {
    if (unseen.empty()) return "";
    return ", written without a seen write (stdio, a raw syscall): killpoint noticed it at " +
           unseen;
  }

  // A planned mid kill's write, inside the kill's parentheses: ", 10000 bytes at offset 100, the
  // first 3996 written, up to the page boundary at 4096", or ", 118 bytes at offset 0 not
  // written" when it fell before. Empty for a kill that carries no size (any other kill, and
  // histories of before run/mid_cut.h: FoldReachedPoint says it from the point's own event).
  static std::string CutNote(const KillData& k) {
    if (!k.bytes) return "";
    std::string at = k.offset ? fmt::format(" at offset {}", *k.offset) : "";
    if (!k.kept) return fmt::format(", {} bytes{} not written", *k.bytes, at);
    std::string note = fmt::format(", {} bytes{}, the first {} written", *k.bytes, at, *k.kept);
    if (k.offset && k.model == PersistenceModel::kProcess &&
        (*k.offset + *k.kept) % kPageBytes == 0)
      note += fmt::format(", up to the page boundary at {}", *k.offset + *k.kept);
    return note;
  }

  // Why a planned mid kill fell before its write (run/mid_cut.h).
  static std::string UncutNote(const KillData& k) {
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
    return fmt::format(", planned {}: {}", k.planned.empty() ? kMid : k.planned, why);
  }

  std::optional<Mark> FirstInstanceMarkOf(const Event& e) const {
    if (auto mark = ProcessFaultMarkOf(e)) return mark;
    const Json& d = e.data;
    if (e.type == event::kFailpoint) {
      FailpointData f = FailpointOf(e);
      std::string bytes = f.bytes ? fmt::format(", {} bytes", *f.bytes) : "";
      return Mark{
          MarkKind::kFailpoint, f.point,
          fmt::format("passed {} (hit {}{}){}", f.point, f.hit, bytes, UnseenNote(f.unseen))};
    }
    if (e.type == event::kPointsPassed) {  // syscall points the shim reported one way, by count
      int64_t total = 0;
      std::string names;
      if (auto it = d.find("points"); it != d.end() && it->is_object()) {
        for (const auto& [name, n] : it->items()) {
          int64_t count = n.is_number() ? n.get<int64_t>() : 0;
          total += count;
          names += fmt::format("{}{} x{}", names.empty() ? "" : ", ", name, count);
        }
      }
      std::string unseen;
      if (auto it = d.find("unseen"); it != d.end() && it->is_object()) {
        for (const auto& [name, at] : it->items()) {
          unseen += fmt::format("{}{} (noticed at {})", unseen.empty() ? "" : ", ", name,
                                at.is_string() ? at.get<std::string>() : "");
        }
      }
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
    if (e.type == event::kPointsDropped) {  // beyond the attempt's caps (run/attempt_state.h)
      return Mark{MarkKind::kFailpoints, fmt::format("{} not recorded", Int(d, "hits")),
                  fmt::format("{} more point hits not recorded, from {} on: the history keeps an "
                              "attempt's first {} "
                              "point names and {} point events",
                              Int(d, "hits"), Str(d, "example"), Int(d, "max_names"),
                              Int(d, "max_events"))};
    }
    if (e.type == event::kKill) {
      KillData k = KillOf(e);
      // Only a syscall point and a command to a service (before it goes, after its answer) have a
      // before and an after; the others are a moment.
      std::string when = IsSyscallPoint(k.point) || IsNetCommandPoint(k.point) ? k.when : "at";
      return Mark{MarkKind::kKill, k.point,
                  fmt::format("kill -9 {} {} (hit {}{}){}{}, then the {} model", when, k.point,
                              k.hit, CutNote(k), UnseenNote(k.unseen), UncutNote(k),
                              k.model ? NameOf(*k.model) : "?")};
    }
    if (e.type == event::kRollback) {
      return Mark{MarkKind::kRollback, Str(d, "model"),
                  fmt::format("{} model rolled back: {}", Str(d, "model"), Str(d, "changes"))};
    }
    if (e.type == event::kCrashCheck) {  // "a reader saw: x held; y VIOLATED: why"
      std::string seen;
      bool violated = false;
      for (const auto& v : CrashCheckOf(e).verdicts) {
        if (!v.is_object()) continue;
        Event entry;  // a verdict's fields, read as leniently as an event's
        entry.data = v;
        bool held = FlagField(entry, "held", true);
        violated = violated || !held;
        seen += fmt::format("{}{} {}", seen.empty() ? "" : "; ", TextField(entry, "invariant", "?"),
                            held ? "held" : "VIOLATED: " + TextField(entry, "explanation"));
      }
      return Mark{MarkKind::kCrashCheck, violated ? "reader: broken" : "reader: ok",
                  "after the crash, a reader saw: " + seen};
    }
    if (e.type == event::kQuery) {
      return Mark{MarkKind::kQuery, Str(d, "key"),
                  fmt::format("query {}: {} deliveries", Str(d, "key"), Int(d, "count"))};
    }
    if (e.type == event::kAlert) {
      return Mark{MarkKind::kAlert, Str(d, "key"),
                  fmt::format("alert {}: {}", Str(d, "key"), Str(d, "reason"))};
    }
    if (e.type == event::kTimeout) {
      return Mark{MarkKind::kTimeout, "timeout",
                  fmt::format("hung; killed at its {} timeout", Ms(Int(d, "timeout_ms")))};
    }
    if (e.type == event::kJobRetry) {
      return Mark{MarkKind::kRetry, fmt::format("retry {}", Int(d, "attempt")),
                  fmt::format("in-process retry {} of {} after {} (backoff {}, breaker {})",
                              Int(d, "attempt"), Str(d, "key"), Ms(Int(d, "delay_ms")),
                              Ms(Int(d, "backoff_ms")), Str(d, "breaker"))};
    }
    if (e.type == event::kJobWait) {
      std::string by = Str(d, "held_by").empty() ? "" : " held by " + Str(d, "held_by");
      return Mark{MarkKind::kLockWait, "wait " + Ms(Int(d, "ms")),
                  fmt::format("waited {} for {}{}: {}", Ms(Int(d, "ms")), Str(d, "key"), by,
                              d.value("acquired", false) ? "took it" : "gave up")};
    }
    if (e.type == event::kOutsideWrites) {  // "wrote outside its sandbox: /tmp/a (open), ..."
      std::string paths;
      size_t n = 0;
      auto writes = d.find("writes");
      for (const auto& w :
           writes != d.end() && writes->is_array() ? *writes : nlohmann::json::array()) {
        if (!w.is_object()) continue;
        ++n;
        std::string ops;
        auto listed = w.find("ops");
        for (const auto& op :
             listed != w.end() && listed->is_array() ? *listed : nlohmann::json::array()) {
          if (op.is_string()) ops += (ops.empty() ? "" : ", ") + op.get<std::string>();
        }
        paths += fmt::format("{}{} ({})", paths.empty() ? "" : "; ", Str(w, "path"), ops);
      }
      return Mark{
          MarkKind::kOutside, fmt::format("{} outside", n),
          "wrote outside its sandbox (no persistence model applies, the next trial sees it): " +
              paths};
    }
    if (e.type == event::kBadRequest) {
      return Mark{MarkKind::kBadRequest, Str(d, "path"),
                  fmt::format("bad request {}: {}", Str(d, "path"), Str(d, "reason"))};
    }
    return std::nullopt;  // an event type this version does not draw
  }

  // The point a kill fell at was reported as reached just before it: one mark says both, so
  // that a timeline never reads "passed write:x" then "kill -9 before write:x".
  void FoldReachedPoint(const Event& e, Lane& lane, Mark& kill) {
    size_t index = &lane - timeline_.lanes.data();
    auto last = last_point_.find(index);
    if (last == last_point_.end() || lane.marks.empty()) return;
    const FailpointData& f = last->second;
    const Mark& prev = lane.marks.back();
    KillData k = KillOf(e);
    if (prev.kind != MarkKind::kFailpoint || prev.label != f.point || f.point != k.point ||
        f.hit != k.hit)
      return;
    if (f.bytes && !k.bytes) {  // a kill that carries its write's size said it already
      const char* what = k.when == kAfter ? " written"
                         : k.when == kMid ? ", a prefix of them written"
                                          : " not written";
      std::string hit = fmt::format("(hit {})", k.hit);
      size_t at = kill.detail.find(hit);
      if (at != std::string::npos)
        kill.detail.insert(at + hit.size() - 1, fmt::format(", {} bytes{}", *f.bytes, what));
    }
    lane.marks.pop_back();
  }

  void Place(const Event& e, Lane* lane, Mark mark) {
    if (e.type == event::kTimeout && lane && InstanceOf(e) < 2)
      lane->outcome = "timed out after " + Ms(Int(e.data, "timeout_ms"));
    if (lane && e.type == event::kKill && InstanceOf(e) < 2) FoldReachedPoint(e, *lane, mark);
    if (lane && e.type == event::kFailpoint && InstanceOf(e) < 2)
      last_point_[lane - timeline_.lanes.data()] = FailpointOf(e);
    if (lane) {
      lane->marks.push_back(std::move(mark));
    } else {
      notes_.push_back(mark.detail + (e.biz_date.empty() ? "" : " (" + e.biz_date + ")"));
    }
  }

  void Date(const std::string& key, const std::string& date) {
    if (!date.empty()) key_dates_[key] = date;
    if (std::find(keys_.begin(), keys_.end(), key) == keys_.end()) keys_.push_back(key);
  }

  static void Collapse(std::vector<Mark>& marks) {
    std::vector<Mark> out;
    for (size_t i = 0; i < marks.size();) {
      size_t j = i;
      while (j < marks.size() && marks[j].kind == MarkKind::kFailpoint) ++j;
      // Keep the last hit of a run visible: it is the one a kill usually follows.
      if (j - i > kMaxVisibleFailpoints) {
        std::string names;
        for (size_t k = i; k < j - 1 && k < i + 6; ++k)
          names += (names.empty() ? "" : ", ") + marks[k].label;
        out.push_back({MarkKind::kFailpoints, fmt::format("{} points", j - 1 - i),
                       fmt::format("passed {} crash points: {}{}", j - 1 - i, names,
                                   j - 1 - i > 6 ? ", ..." : "")});
        i = j - 1;
      }
      for (; i < j; ++i) out.push_back(std::move(marks[i]));
      if (i < marks.size()) out.push_back(std::move(marks[i++]));
    }
    marks = std::move(out);
  }

  void FinalState() {
    for (const std::string& key : keys_) {
      auto d = deliveries_.find(key);
      std::string date = key_dates_.count(key) ? " (" + key_dates_[key] + ")" : "";
      std::string line = key + date + ": ";
      if (d == deliveries_.end()) {
        line += "never delivered";
      } else {
        std::string ids;
        for (int64_t id : d->second) ids += (ids.empty() ? "" : ", ") + std::to_string(id);
        line += d->second.size() == 1
                    ? "delivered once (delivery " + ids + ")"
                    : fmt::format("delivered {} (deliveries {})", Times(d->second.size()), ids);
      }
      auto dd = date_deliveries_.find(key_dates_.count(key) ? key_dates_[key] : "");
      if (options_.duplicates_per_date && d != deliveries_.end() && dd != date_deliveries_.end() &&
          dd->second.size() > d->second.size()) {
        line += fmt::format(", but its date was delivered {} under {}", Times(dd->second.size()),
                            Keys(dd->second));
      }
      for (const auto& reason : alerts_[key]) line += "; alerted: " + reason;
      timeline_.final_state.push_back(line);
    }
    for (const std::string& date : dates_) {
      const Lane* last = nullptr;
      for (const Lane& l : timeline_.lanes) {
        if (l.biz_date == date) last = &l;
      }
      if (!last) continue;
      auto dd = date_deliveries_.find(date);
      // A job that never called the downstream delivers nothing by design: no "never
      // delivered" then (issue 33), only how its date ended.
      std::string delivered =
          !called_downstream_ && keys_.empty() ? ""
          : dd == date_deliveries_.end()
              ? "never delivered"
              : fmt::format("delivered {}{}{}", Times(dd->second.size()),
                            options_.duplicates_per_date && dd->second.size() > 1
                                ? " (DUPLICATE: under "
                                : " (under ",
                            Keys(dd->second) + ")");
      timeline_.final_state.push_back(fmt::format("{}: {}last attempt {} {}{}", date,
                                                  delivered.empty() ? "" : delivered + "; ",
                                                  last->Title(), last->outcome,
                                                  last->succeeded ? ""
                                                  : last->gave_up ? ", gave up"
                                                                  : ""));
    }
  }

  TimelineOptions options_;
  Timeline timeline_;
  std::vector<std::string> notes_;
  bool called_downstream_ = false;         // a publish event, committed or not, in the trial
  std::vector<std::string> setup_points_;  // job.setup's crash points, until its setup event
  static constexpr size_t kSetupPointsNamed = 5;
  std::map<LaneKey, size_t> lanes_;
  std::map<std::pair<std::string, int>, int64_t>
      waits_;  // (date, trigger) -> waits since its last attempt
  bool in_final_pass_ = false;
  std::map<size_t, FailpointData> last_point_;  // by lane index: its last crash point passed
  std::vector<std::string> dates_, keys_;
  std::map<std::string, std::vector<int64_t>> deliveries_;
  std::map<std::string, std::vector<std::string>> alerts_;
  // By date (the request's biz_date, else the attempt's): the key of each delivery, in order.
  std::map<std::string, std::vector<std::string>> date_deliveries_;
  std::map<std::string, std::string> key_dates_;
};

}  // namespace

const char* ToString(MarkKind k) {
  switch (k) {
    case MarkKind::kFailpoint:
      return "crash point passed";
    case MarkKind::kFailpoints:
      return "crash points passed";
    case MarkKind::kKill:
      return "kill";
    case MarkKind::kRollback:
      return "rollback";
    case MarkKind::kPublish:
      return "publish";
    case MarkKind::kDuplicate:
      return "duplicate delivery";
    case MarkKind::kPublishFailed:
      return "publish not delivered";
    case MarkKind::kQuery:
      return "query";
    case MarkKind::kAlert:
      return "alert";
    case MarkKind::kTimeout:
      return "timeout";
    case MarkKind::kBadRequest:
      return "bad request";
    case MarkKind::kPause:
      return "pause (SIGSTOP)";
    case MarkKind::kResume:
      return "resume (SIGCONT)";
    case MarkKind::kOverlap:
      return "second instance";
    case MarkKind::kRetry:
      return "in-process retry";
    case MarkKind::kLockWait:
      return "waited for a lock";
    case MarkKind::kCrashCheck:
      return "checked after the crash";
    case MarkKind::kOutside:
      return "wrote outside the sandbox";
    case MarkKind::kNetFault:
      return "network fault, server kill or pause";
  }
  return "?";
}

std::string Lane::Title() const {
  return fmt::format("{} #{} a{}{}", biz_date, trigger, attempt, final_pass ? " (final pass)" : "");
}

TimelineOptions TimelineOptionsFor(const std::vector<std::string>& invariants,
                                   const std::vector<std::string>& more) {
  auto has = [](const std::vector<std::string>& names) {
    return std::find(names.begin(), names.end(), "no_double_publish") != names.end();
  };
  return {has(invariants) || has(more)};
}

Timeline BuildTimeline(const std::vector<Event>& events, const TimelineOptions& options) {
  Builder b(options);
  for (const Event& e : events) b.Add(e);
  return b.Finish();
}

}  // namespace killpoint
