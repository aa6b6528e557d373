#include "run/attempt_state.h"

#include <unistd.h>

#include "history/event_registry.h"
#include "plan/crash_point.h"
#include "plan/point_pattern.h"
#include "scenario/net_point.h"

namespace killpoint {
namespace {

// The failpoint event of a crash point an instance passed, at its nth hit.
event::Failpoint PassedEvent(const FailpointHit& hit, int n, std::optional<int> instance) {
  event::Failpoint f;
  f.point = hit.name;
  f.hit = n;
  f.pid = hit.pid;
  if (hit.bytes >= 0) f.bytes = hit.bytes;
  f.unseen = hit.unseen;
  f.instance = instance;
  return f;
}

}  // namespace

std::vector<std::string> AttemptState::WithAliases(std::vector<std::string> changes) {
  std::lock_guard lock(mu_);
  for (std::string& change : changes) {
    size_t colon = change.find(": ");
    if (colon == std::string::npos) continue;
    change = temp_names_.Known(change.substr(0, colon)) + change.substr(colon);
  }
  return changes;
}

void AttemptState::Arm(const AttemptFault& fault, bool track) {
  std::lock_guard lock(mu_);
  fault_ = fault;
  track_ = track;
  hits_.clear();
  passed_.clear();
  unseen_.clear();
  outside_.clear();
  refused_.clear();
  killed_ = false;
  awaiting_done_ = false;
  awaiting_real_.clear();
  awaiting_name_.clear();
  awaiting_hit_ = {};
  awaiting_cut_.reset();
  pattern_hits_ = 0;
  temp_names_.Clear();
  process_ = nullptr;
  armed_ = true;
  pause_done_ = fault.pause.point.empty();
  overlap_done_ = fault.overlap.point.empty();
  server_done_ = fault.server.point.empty();
  pending_.reset();
  held_ = false;
  holds_stopped_ = false;
  second_pgid_ = 0;
  expecting_second_ = false;
  hits2_.clear();
  passed2_.clear();
  hits3_.clear();
  passed3_.clear();
  second_holds_at_ = fault.overlap.second_holds_at;
  second_hold_open_ = false;
  second_held_.reset();
  third_pgid_ = 0;
  point_events_ = 0;
  dropped_hits_ = 0;
  dropped_example_.clear();
}

void AttemptState::Attach(RunningProcess* process) {
  std::lock_guard lock(mu_);
  process_ = process;
  attached_.notify_all();
}

void AttemptState::SetOutsidePlaces(OutsidePlaces places) {
  std::lock_guard lock(mu_);
  places_ = std::move(places);
}

void AttemptState::KeepNames(std::set<std::string> paths) {
  std::lock_guard lock(mu_);
  temp_names_.Keep(std::move(paths));
}

bool AttemptState::Finish() {
  std::lock_guard lock(mu_);
  // Before the points passed, which a counterexample's history rebuilds right before the exit
  // (counterexample/fired_only.h).
  std::vector<OutsideWrite> writes;
  for (const auto& [path, ops] : outside_) {
    if (auto w = ClassifyOutside(path, ops, places_)) MergeOutsideWrites(writes, {*w});
  }
  if (!writes.empty()) history_->Add(event::OutsideWrites{writes});
  if (!refused_.empty()) history_->Add(event::Refused{{refused_.begin(), refused_.end()}});
  auto passed = [&](const std::map<std::string, int>& points, std::optional<int> instance) {
    if (points.empty()) return;
    history_->Add(event::PointsPassed{
        {points.begin(), points.end()}, instance ? decltype(unseen_){} : unseen_, instance});
  };
  passed(passed_, std::nullopt);
  passed(passed2_, 2);
  passed(passed3_, 3);
  if (dropped_hits_ > 0) {
    history_->Add(event::PointsDropped{dropped_hits_, dropped_example_,
                                       static_cast<int64_t>(kMaxPointNames),
                                       static_cast<int64_t>(kMaxPointEvents)});
  }
  passed_.clear();
  unseen_.clear();
  outside_.clear();
  refused_.clear();
  passed2_.clear();
  passed3_.clear();
  second_pgid_ = 0;
  third_pgid_ = 0;
  second_hold_open_ = false;
  expecting_second_ = false;
  process_ = nullptr;
  armed_ = false;
  attached_.notify_all();
  return killed_;
}

HitAnswer AttemptState::Kill(const FailpointHit& hit, int n, const std::optional<MidCut>& cut) {
  killed_ = true;
  // A write the shim did not see was done before it was noticed: whatever moment the plan
  // named, the kill falls after it (docs/syscall-shim.md, "Unseen writes"). A mid kill of a
  // write it could not cut falls before it (run/mid_cut.h).
  Moment when = !hit.unseen.empty()  ? Moment::kAfter
                : cut && !cut->cut() ? Moment::kBefore
                                     : fault_.when;
  event::Kill kill;
  kill.point = hit.name;
  kill.hit = n;
  kill.when = when;
  kill.model = fault_.model;
  kill.unseen = hit.unseen;
  if (cut) {  // what the history needs to tell the cut from the plan's moment
    if (hit.bytes >= 0) kill.bytes = hit.bytes;
    if (hit.offset >= 0) kill.offset = hit.offset;
    if (cut->cut()) kill.kept = cut->kept;
    if (!cut->cut()) kill.planned = fault_.when;
    if (!cut->cut()) kill.uncut = cut->uncut;
  }
  if (IsPointPattern(fault_.kill_point)) kill.pattern = fault_.kill_point;
  history_->Add(kill);
  process_->KillGroup();
  return HitAnswer::Killed();
}

bool AttemptState::Fires(const std::string& name, int n) {
  if (killed_ || fault_.kill_point.empty()) return false;
  if (!IsPointPattern(fault_.kill_point))
    return fault_.kill_point == name && fault_.occurrence == n;
  return MatchPoint(fault_.kill_point, name) && ++pattern_hits_ == fault_.occurrence;
}

bool AttemptState::NamedByFault(const std::string& name) const {
  const std::string& kill = fault_.kill_point;
  bool kills = kill == name || (IsPointPattern(kill) && !killed_ && MatchPoint(kill, name));
  return kills || fault_.pause.point == name || fault_.overlap.point == name ||
         fault_.server.point == name || (!second_holds_at_.empty() && second_holds_at_ == name);
}

bool AttemptState::Records(const std::string& name, bool known, bool event) {
  size_t names = hits_.size() + hits2_.size() + passed2_.size() + hits3_.size() + passed3_.size();
  if ((known || names < kMaxPointNames) && (!event || point_events_ < kMaxPointEvents)) {
    point_events_ += event ? 1 : 0;
    return true;
  }
  if (dropped_hits_++ == 0) dropped_example_ = name;
  return false;
}

HitAnswer AttemptState::Decide(const FailpointHit& hit, const std::string& real, int n,
                               bool fires) {
  if (!fires || killed_ || !process_) return HitAnswer::Continue();
  if (!hit.unseen.empty()) return Kill(hit, n);  // nothing left to do between HIT and DONE
  std::optional<MidCut> cut;
  if (fault_.when == Moment::kMid) cut = CutWrite(fault_.model, hit.bytes, hit.offset);
  if (cut && !cut->cut()) return Kill(hit, n, cut);  // no cut a kill can make: before it
  if (fault_.when == Moment::kAfter || cut) {
    awaiting_done_ = true;
    awaiting_real_ = real;  // DONE comes under the name the shim knows
    awaiting_name_ = hit.name;
    awaiting_hit_ = hit;
    awaiting_cut_ = cut;
    return cut ? HitAnswer{HitAnswer::kPartial, cut->kept} : HitAnswer{HitAnswer::kAfter, 0};
  }
  return Kill(hit, n);  // before
}

HitAnswer AttemptState::DoneHit(const FailpointHit& done) {
  if (!awaiting_done_ || killed_ || !process_ || done.name != awaiting_real_)
    return HitAnswer::Continue();
  awaiting_done_ = false;
  FailpointHit hit = awaiting_hit_;  // the HIT's size and offset, not DONE's bytes written
  std::optional<MidCut> cut = awaiting_cut_;
  if (cut && done.bytes >= 0) cut->kept = done.bytes;  // what really reached the file
  if (cut && !cut->cut()) cut->uncut = kUncutFailed;   // the write failed (ENOSPC, EFBIG)
  return Kill(hit, hits_[hit.name], cut);
}

HitAnswer AttemptState::OnHit(const FailpointHit& sent) {
  std::unique_lock lock(mu_);
  attached_.wait(lock, [&] { return (process_ || !armed_) && !expecting_second_; });
  // A call the supervisor refused (v1.6), by any instance: never a point, always one way.
  if (sent.refused) {
    if (refused_.size() < kMaxPointNames) refused_.insert(sent.name);
    return HitAnswer::Continue();
  }
  // A write outside the sandbox (v1.5), by either instance: never a point, always one way.
  if (!sent.outside.empty()) {
    bool fits = outside_.contains(sent.name) || outside_.size() < kMaxPointNames;
    if (armed_ && fits) outside_[sent.name].insert(sent.outside);
    if (armed_ && !fits && dropped_hits_++ == 0) dropped_example_ = sent.name;
    return HitAnswer::Continue();
  }
  FailpointHit hit = sent;
  if (!sent.done) hit.name = temp_names_.Rename(sent.name, sent.excl, sent.seen);
  if (int instance = InstanceOf(hit); instance != 1) return OtherHit(hit, sent.name, instance);
  if (hit.done) return DoneHit(hit);
  bool known = hits_.contains(hit.name);
  bool named = NamedByFault(hit.name);
  if (!named && !Records(hit.name, known, false)) {
    if (durability_ && track_ && IsSyscallPoint(sent.name)) durability_->OnOperation(sent.name);
    return HitAnswer::Continue();
  }
  int n = ++hits_[hit.name];
  bool fires = Fires(hit.name, n);
  HitAnswer answer = HitAnswer::Continue();
  if (hit.seen) {  // reported one way: the shim knew it is not the armed point
    ++passed_[hit.name];
    if (!hit.unseen.empty()) unseen_[hit.name] = hit.unseen;
  } else {
    if (named || Records(hit.name, true, true)) history_->Add(PassedEvent(hit, n, std::nullopt));
    bool pause = !pause_done_ && process_ && fault_.pause.point == hit.name && n == 1;
    bool overlap = !overlap_done_ && process_ && fault_.overlap.point == hit.name && n == 1;
    bool server = !server_done_ && process_ && fault_.server.point == hit.name && n == 1;
    // The tracker hears of the operation when the hold is released. (Nothing would release a
    // request held at a downstream point: those never hold.)
    if ((pause || overlap || server) && !IsDownstreamPoint(hit.name)) {
      pause_done_ = pause_done_ || pause;
      overlap_done_ = overlap_done_ || overlap;
      server_done_ = server_done_ || server;
      pending_ = Hold{hit, n, pause, overlap, server, sent.name, fires};
      held_ = true;
      hold_cv_.notify_all();
      return {HitAnswer::kHold, 0};
    }
    answer = Decide(hit, sent.name, n, fires);
  }
  // The job is blocked before an operation it will now perform: the tracker records what the
  // operation makes durable (a sync) or what it changes (names, truncations, closes). It
  // reads the sandbox, so it hears the real path, never an alias. An unseen write is done
  // already, even when the job is killed at its report: it counts as a write.
  bool done = answer.kind != HitAnswer::kKilled || !hit.unseen.empty();
  bool heard = !hit.seen || (durability_ && durability_->HearsOneWay());
  if (durability_ && track_ && done && heard && IsSyscallPoint(sent.name)) {
    durability_->OnOperation(sent.name);
  }
  return answer;
}

bool AttemptState::OnDownstreamPoint(const std::string& point, bool record_all) {
  {
    std::lock_guard lock(mu_);
    const std::string& kill = fault_.kill_point;
    bool may_fire = kill == point || (IsPointPattern(kill) && MatchPoint(kill, point));
    if (!record_all && !may_fire) return false;  // nothing to count: no kill can fall on it
  }
  FailpointHit hit;
  hit.name = point;
  HitAnswer answer = OnHit(hit);
  if (answer.kind == HitAnswer::kAfter || answer.kind == HitAnswer::kPartial) {
    hit.done = true;  // the moment has no duration: "after" it is at once
    answer = OnHit(hit);
  }
  return answer.kind == HitAnswer::kKilled;
}

CommandStep StepOf(const HitAnswer& answer) {
  switch (answer.kind) {
    case HitAnswer::kKilled:
      return CommandStep::kKilled;
    case HitAnswer::kAfter:
      return CommandStep::kAskAfter;
    case HitAnswer::kHold:
      return CommandStep::kHold;
    case HitAnswer::kContinue:
    case HitAnswer::kPartial:
      break;
  }
  return CommandStep::kForward;
}

CommandStep AttemptState::OnNetCommand(const std::string& point, bool after, uint64_t ticket,
                                       bool record_all) {
  {
    std::lock_guard lock(mu_);
    if (!armed_) return CommandStep::kForward;  // a setup's command, or one after the attempt
    if (!record_all && !NamedByFault(point) && !(after && awaiting_done_))
      return CommandStep::kForward;
  }
  FailpointHit hit;
  hit.name = point;
  hit.done = after;
  hit.connection = ticket;
  return StepOf(OnHit(hit));
}

}  // namespace killpoint

namespace killpoint {

int AttemptState::InstanceOf(const FailpointHit& hit) const {
  if (second_pgid_ == 0) return 1;
  if (hit.pid > 0) {
    pid_t group = ::getpgid(hit.pid);
    if (group == second_pgid_) return 2;
    if (third_pgid_ != 0 && group == third_pgid_) return 3;
    if (group > 0) return 1;
  }
  // No pid, or its process is gone: while the first is held, only the second can send; while
  // the second is held after the first's end, only the third.
  if (third_pgid_ != 0 && second_held_) return 3;
  return held_ ? 2 : 1;
}

HitAnswer AttemptState::OtherHit(const FailpointHit& hit, const std::string& real, int instance) {
  if (hit.done) return HitAnswer::Continue();  // never told AFTER or PARTIAL
  auto& hits = instance == 2 ? hits2_ : hits3_;
  auto& passed = instance == 2 ? passed2_ : passed3_;
  bool known = hits.contains(hit.name) || passed.contains(hit.name);
  bool holds = instance == 2 && second_hold_open_ && !second_held_ && !hit.seen &&
               hit.name == second_holds_at_ && !hits.contains(hit.name) &&
               !IsDownstreamPoint(hit.name);
  if (hit.seen) {
    if (Records(hit.name, known, false)) ++passed[hit.name];
  } else if (holds || Records(hit.name, known, true)) {
    history_->Add(PassedEvent(hit, ++hits[hit.name], instance));
  }
  // Every instance writes to the same disk: the tracker hears of the others' operations too
  // (a held one's when it is let go of: it has not done it yet, but nothing reads the tracker
  // before every instance ended).
  if (durability_ && track_ && !hit.seen && IsSyscallPoint(real)) durability_->OnOperation(real);
  if (holds) {  // the driver notices it (SecondHeld) and answers it once the third ran
    second_held_ = hit.connection;
    return {HitAnswer::kHold, 0};
  }
  return HitAnswer::Continue();
}

bool AttemptState::SecondHeld() {
  std::lock_guard lock(mu_);
  return second_held_.has_value();
}

std::optional<uint64_t> AttemptState::CloseSecondHold() {
  std::lock_guard lock(mu_);
  second_hold_open_ = false;
  return second_held_;
}

void AttemptState::ExpectThird() {
  std::lock_guard lock(mu_);
  expecting_second_ = true;
}

void AttemptState::SetThird(int pgid) {
  std::lock_guard lock(mu_);
  third_pgid_ = pgid;
  expecting_second_ = false;
  attached_.notify_all();
}

void AttemptState::ReleasedSecond() {
  std::lock_guard lock(mu_);
  second_held_.reset();
}

std::optional<AttemptState::Hold> AttemptState::NextHold() {
  std::unique_lock lock(mu_);
  hold_cv_.wait(lock, [&] { return pending_.has_value() || holds_stopped_; });
  std::optional<Hold> hold;
  hold.swap(pending_);
  return hold;
}

void AttemptState::StopHolds() {
  std::lock_guard lock(mu_);
  holds_stopped_ = true;
  hold_cv_.notify_all();
}

HitAnswer AttemptState::Release(const Hold& hold) {
  std::lock_guard lock(mu_);
  held_ = false;
  HitAnswer answer = Decide(hold.hit, hold.real, hold.n, hold.fires);
  if (durability_ && track_ && answer.kind != HitAnswer::kKilled && IsSyscallPoint(hold.real)) {
    durability_->OnOperation(hold.real);
  }
  return answer;
}

void AttemptState::ExpectSecond() {
  std::lock_guard lock(mu_);
  expecting_second_ = true;
  second_hold_open_ = !second_holds_at_.empty();
}

void AttemptState::SetSecond(int pgid) {
  std::lock_guard lock(mu_);
  second_pgid_ = pgid;
  expecting_second_ = false;
  attached_.notify_all();
}

}  // namespace killpoint
