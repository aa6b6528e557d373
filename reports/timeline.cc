#include "reports/timeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

#include "plan/crash_point.h"
#include "reports/timeline_marks.h"

namespace killpoint {
namespace {

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

using LaneKey = std::tuple<std::string, int, int>;  // biz_date, trigger, attempt

// Folds events into lanes, marks and notes, one event at a time.
class Builder {
 public:
  explicit Builder(const TimelineOptions& options) : options_(options) {}

  // An event type the registry does not know (a newer killpoint's) is not drawn.
  void Add(const Event& e) {
    Visit(e, [&](const auto& typed) { On(e, typed); });
  }

  Timeline Finish() {
    for (Lane& lane : timeline_.lanes) Collapse(lane.marks);
    FinalState();
    timeline_.notes.insert(timeline_.notes.begin(), notes_.begin(), notes_.end());
    return std::move(timeline_);
  }

 private:
  // Any type with a mark of its own (reports/timeline_marks.h) draws it; the others, nothing
  // unless an overload below folds them into a lane or a note.
  template <class T>
  void On(const Event& e, const T& typed) {
    if constexpr (requires { MarkFor(typed); }) PlaceMark(e, MarkFor(typed));
  }

  void On(const Event&, const event::TrialStart&) {}
  void On(const Event&, const event::TrialEnd&) {}

  void On(const Event& e, const event::Spawn& s) {
    if (InstanceOf(e) == 2) return;          // drawn by its overlap mark
    if (InstanceOf(e) < 2) return Spawn(e);  // a third: a mark
    PlaceMark(e, MarkFor(s));
  }

  void On(const Event& e, const event::Breaker& b) {
    notes_.push_back(fmt::format("circuit breaker {} -> {} at {}", b.from, b.to, Ms(e.t_ms)));
  }

  void On(const Event& e, const event::NonRetryable& n) {
    notes_.push_back(fmt::format("{}#{}: exit {} is not retryable, no attempt after {}", e.biz_date,
                                 e.trigger, n.code, e.attempt));
  }

  // One labelled line for job.setup, however many files it made (its crash points are the
  // setup's own, recorded before any attempt): issue 33 found 33 bare lines here.
  void On(const Event&, const event::Setup& s) {
    std::string passed;
    for (size_t i = 0; i < setup_points_.size() && i < kSetupPointsNamed; ++i)
      passed += (i == 0 ? "" : ", ") + setup_points_[i];
    if (setup_points_.size() > kSetupPointsNamed) passed += ", ...";
    notes_.push_back(fmt::format("job.setup exited {}{}{}", s.exit_code,
                                 setup_points_.empty()
                                     ? ""
                                     : fmt::format(", passing {} crash points of its own ({})",
                                                   setup_points_.size(), passed),
                                 s.stderr_tail.empty() ? "" : ": " + s.stderr_tail));
    setup_points_.clear();
  }

  void On(const Event& e, const event::Failpoint& f) {
    if (e.biz_date.empty()) {  // job.setup's, before its end
      setup_points_.push_back(f.point);
      return;
    }
    Lane* lane = LaneOf(e);
    if (lane && InstanceOf(e) < 2) last_point_[lane - timeline_.lanes.data()] = f;
    PlaceMark(e, MarkFor(f));
  }

  void On(const Event& e, const event::Kill& k) {
    Mark mark = *MarkFor(k);
    Attribute(e, mark);
    Lane* lane = LaneOf(e);
    if (lane && InstanceOf(e) < 2) FoldReachedPoint(k, *lane, mark);
    Place(e, lane, std::move(mark));
  }

  void On(const Event& e, const event::Timeout& t) {
    Lane* lane = LaneOf(e);
    if (lane && InstanceOf(e) < 2) lane->outcome = "timed out after " + Ms(t.timeout_ms);
    PlaceMark(e, MarkFor(t));
  }

  void On(const Event& e, const event::Exit& x) {
    Lane* lane = LaneOf(e);
    if (!lane || InstanceOf(e) >= 2) return PlaceMark(e, MarkFor(x));
    lane->succeeded = x.Succeeded();
    if (lane->outcome.empty()) lane->outcome = HowItEnded(x);
    lane->stderr_tail = x.stderr_tail;
  }

  void On(const Event& e, const event::GiveUp&) {
    if (Lane* lane = LaneOf(e)) lane->gave_up = true;
  }

  void On(const Event& e, const event::Alert& a) {
    alerts_[a.key].push_back(a.reason);
    Date(a.key, a.biz_date);
    PlaceMark(e, MarkFor(a));
  }

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
  void On(const Event& e, const event::RetryWait& w) {
    waits_[{e.biz_date, e.trigger}] += w.delay_ms;
    if (w.reason != WaitReason::kBackoff) {
      notes_.push_back(fmt::format("{}#{} a{} waited {} ({})", e.biz_date, e.trigger,
                                   w.next_attempt, Ms(w.delay_ms), NameOf(w.reason)));
    }
  }

  void On(const Event&, const event::FinalPass& f) {
    in_final_pass_ = true;
    std::string dates;
    for (const std::string& d : f.biz_dates)
      dates += (dates.empty() ? "" : ", ") + nlohmann::json(d).dump();
    notes_.push_back(dates.empty() ? "final pass: every date had succeeded, nothing to rerun"
                                   : "final pass (faults stopped) reran: " + dates);
  }

  Lane* LaneOf(const Event& e) {
    auto it = lanes_.find({e.biz_date, e.trigger, e.attempt});
    return it == lanes_.end() ? nullptr : &timeline_.lanes[it->second];
  }

  void On(const Event& e, const event::Publish& p) {
    called_downstream_ = true;
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
    Place(e, LaneOf(e), std::move(m));
  }

  // An event of an overlap's second (third) instance is marked on its attempt's lane as
  // "i2 ..." ("i3 ..."). Instance 0: a downstream request while both instances ran, which the
  // job did not label.
  static void Attribute(const Event& e, Mark& mark) {
    int instance = InstanceOf(e);
    if (instance == 1) return;
    mark.label = (instance >= 2 ? fmt::format("i{} ", instance) : "i? ") + mark.label;
    mark.detail = (instance >= 2 ? fmt::format("instance {}: ", instance) : "either instance: ") +
                  mark.detail;
  }

  void PlaceMark(const Event& e, std::optional<Mark> mark) {
    if (!mark) return;
    Attribute(e, *mark);
    Place(e, LaneOf(e), std::move(*mark));
  }

  // The point a kill fell at was reported as reached just before it: one mark says both, so
  // that a timeline never reads "passed write:x" then "kill -9 before write:x".
  void FoldReachedPoint(const event::Kill& k, Lane& lane, Mark& kill) {
    size_t index = &lane - timeline_.lanes.data();
    auto last = last_point_.find(index);
    if (last == last_point_.end() || lane.marks.empty()) return;
    const event::Failpoint& f = last->second;
    const Mark& prev = lane.marks.back();
    if (prev.kind != MarkKind::kFailpoint || prev.label != f.point || f.point != k.point ||
        f.hit != k.hit)
      return;
    if (f.bytes && !k.bytes) {  // a kill that carries its write's size said it already
      const char* what = k.when == Moment::kAfter ? " written"
                         : k.when == Moment::kMid ? ", a prefix of them written"
                                                  : " not written";
      std::string hit = fmt::format("(hit {})", k.hit);
      size_t at = kill.detail.find(hit);
      if (at != std::string::npos)
        kill.detail.insert(at + hit.size() - 1, fmt::format(", {} bytes{}", *f.bytes, what));
    }
    lane.marks.pop_back();
  }

  void Place(const Event& e, Lane* lane, Mark mark) {
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
  std::map<size_t, event::Failpoint> last_point_;  // by lane index: its last crash point passed
  std::vector<std::string> dates_, keys_;
  std::map<std::string, std::vector<int64_t>> deliveries_;
  std::map<std::string, std::vector<std::string>> alerts_;
  // By date (the request's biz_date, else the attempt's): the key of each delivery, in order.
  std::map<std::string, std::vector<std::string>> date_deliveries_;
  std::map<std::string, std::string> key_dates_;
};

}  // namespace

const char* ToString(MarkKind k) { return kMarkKindNames.NameOf(k).data(); }

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
