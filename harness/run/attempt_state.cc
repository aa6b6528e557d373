#include "run/attempt_state.h"

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
}

void AttemptState::Attach(RunningProcess* process) {
  std::lock_guard lock(mu_);
  process_ = process;
  attached_.notify_all();
}

bool AttemptState::Finish() {
  std::lock_guard lock(mu_);
  if (!passed_.empty()) history_->Add(event::kPointsPassed, {{"points", passed_}});
  passed_.clear();
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
  attached_.wait(lock, [&] { return process_ || !armed_; });
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
