#include "run/attempt_state.h"

namespace killpoint {

void AttemptState::Arm(const AttemptFault& fault) {
  std::lock_guard lock(mu_);
  fault_ = fault;
  hits_.clear();
  killed_ = false;
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
  process_ = nullptr;
  armed_ = false;
  attached_.notify_all();
  return killed_;
}

bool AttemptState::OnHit(const FailpointHit& hit) {
  std::unique_lock lock(mu_);
  attached_.wait(lock, [&] { return process_ || !armed_; });
  int n = ++hits_[hit.name];
  history_->Add(event::kFailpoint, {{"point", hit.name}, {"hit", n}, {"pid", hit.pid}});
  if (killed_ || !process_ || fault_.kill_point != hit.name || fault_.occurrence != n) return true;
  killed_ = true;
  history_->Add(event::kKill, {{"point", hit.name}, {"hit", n}, {"model", fault_.model}});
  process_->KillGroup();
  return false;
}

}  // namespace killpoint
