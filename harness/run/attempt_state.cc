#include "run/attempt_state.h"

#include <unistd.h>

#include "plan/crash_point.h"

namespace killpoint {

void AttemptState::Arm(const AttemptFault& fault, bool track) {
  std::lock_guard lock(mu_);
  fault_ = fault;
  track_ = track;
  hits_.clear();
  passed_.clear();
  killed_ = false;
  awaiting_done_ = false;
  process_ = nullptr;
  armed_ = true;
  pause_done_ = fault.pause.point.empty();
  overlap_done_ = fault.overlap.point.empty();
  pending_.reset();
  held_ = false;
  holds_stopped_ = false;
  second_pgid_ = 0;
  expecting_second_ = false;
  hits2_.clear();
  passed2_.clear();
}

void AttemptState::Attach(RunningProcess* process) {
  std::lock_guard lock(mu_);
  process_ = process;
  attached_.notify_all();
}

bool AttemptState::Finish() {
  std::lock_guard lock(mu_);
  if (!passed_.empty()) history_->Add(event::kPointsPassed, {{"points", passed_}});
  if (!passed2_.empty()) history_->Add(event::kPointsPassed, {{"points", passed2_}, {"instance", 2}});
  passed_.clear();
  passed2_.clear();
  second_pgid_ = 0;
  expecting_second_ = false;
  process_ = nullptr;
  armed_ = false;
  attached_.notify_all();
  return killed_;
}

HitAnswer AttemptState::Kill(const FailpointHit& hit, int n) {
  killed_ = true;
  history_->Add(event::kKill, {{"point", hit.name}, {"hit", n}, {"when", fault_.when}, {"model", fault_.model}});
  process_->KillGroup();
  return HitAnswer::Killed();
}

HitAnswer AttemptState::Decide(const FailpointHit& hit, int n) {
  bool planned = !killed_ && process_ && fault_.kill_point == hit.name && fault_.occurrence == n;
  if (!planned) return HitAnswer::Continue();
  if (fault_.when == kAfter) {
    awaiting_done_ = true;
    return {HitAnswer::kAfter, 0};
  }
  if (fault_.when == kMid && hit.bytes > 1) {
    awaiting_done_ = true;
    return {HitAnswer::kPartial, hit.bytes / 2};
  }
  return Kill(hit, n);  // before; or mid of a write too small to split
}

HitAnswer AttemptState::OnHit(const FailpointHit& hit) {
  std::unique_lock lock(mu_);
  attached_.wait(lock, [&] { return (process_ || !armed_) && !expecting_second_; });
  if (InstanceOf(hit) == 2) return SecondHit(hit);
  if (hit.done) {
    if (!awaiting_done_ || killed_ || !process_ || fault_.kill_point != hit.name) return HitAnswer::Continue();
    awaiting_done_ = false;
    return Kill(hit, hits_[hit.name]);
  }
  int n = ++hits_[hit.name];
  HitAnswer answer = HitAnswer::Continue();
  if (hit.seen) {  // reported one way: the shim knew it is not the armed point
    ++passed_[hit.name];
  } else {
    nlohmann::json data = {{"point", hit.name}, {"hit", n}, {"pid", hit.pid}};
    if (hit.bytes >= 0) data["bytes"] = hit.bytes;
    history_->Add(event::kFailpoint, data);
    bool pause = !pause_done_ && process_ && fault_.pause.point == hit.name && n == 1;
    bool overlap = !overlap_done_ && process_ && fault_.overlap.point == hit.name && n == 1;
    if (pause || overlap) {  // the tracker hears of the operation when the hold is released
      pause_done_ = pause_done_ || pause;
      overlap_done_ = overlap_done_ || overlap;
      pending_ = Hold{hit, n, pause, overlap};
      held_ = true;
      hold_cv_.notify_all();
      return {HitAnswer::kHold, 0};
    }
    answer = Decide(hit, n);
  }
  // The job is blocked before an operation it will now perform: the tracker records what the
  // operation makes durable (a sync) or what it changes (names, truncations, closes).
  if (durability_ && track_ && answer.kind != HitAnswer::kKilled && IsSyscallPoint(hit.name)) {
    durability_->OnOperation(hit.name);
  }
  return answer;
}

}  // namespace killpoint

namespace killpoint {

int AttemptState::InstanceOf(const FailpointHit& hit) const {
  if (second_pgid_ == 0) return 1;
  if (hit.pid > 0) {
    pid_t group = ::getpgid(hit.pid);
    if (group == second_pgid_) return 2;
    if (group > 0) return 1;
  }
  // No pid, or its process is gone: while the first is held, only the second can send.
  return held_ ? 2 : 1;
}

HitAnswer AttemptState::SecondHit(const FailpointHit& hit) {
  if (hit.done) return HitAnswer::Continue();  // never told AFTER or PARTIAL
  if (hit.seen) {
    ++passed2_[hit.name];
  } else {
    nlohmann::json data = {{"point", hit.name}, {"hit", ++hits2_[hit.name]}, {"pid", hit.pid}, {"instance", 2}};
    if (hit.bytes >= 0) data["bytes"] = hit.bytes;
    history_->Add(event::kFailpoint, data);
  }
  // Both instances write to the same disk: the tracker hears of the second's operations too.
  if (durability_ && track_ && !hit.seen && IsSyscallPoint(hit.name)) durability_->OnOperation(hit.name);
  return HitAnswer::Continue();
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
  HitAnswer answer = Decide(hold.hit, hold.n);
  if (durability_ && track_ && answer.kind != HitAnswer::kKilled && IsSyscallPoint(hold.hit.name)) {
    durability_->OnOperation(hold.hit.name);
  }
  return answer;
}

void AttemptState::ExpectSecond() {
  std::lock_guard lock(mu_);
  expecting_second_ = true;
}

void AttemptState::SetSecond(int pgid) {
  std::lock_guard lock(mu_);
  second_pgid_ = pgid;
  expecting_second_ = false;
  attached_.notify_all();
}

}  // namespace killpoint
