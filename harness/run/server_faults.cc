#include "run/server_faults.h"

namespace killpoint {
namespace {

constexpr size_t kMissingSample = 5;  // the rows or keys an event names

}  // namespace

event::ServerFault ServerFaulter::Data(int hit) const {
  event::ServerFault f;
  f.service = fault_.service;
  f.kind = spec_.kind;
  f.durability = spec_.durability;
  f.action = fault_.action;
  f.point = fault_.point;
  f.hit = hit;
  return f;
}

Status ServerFaulter::Start(int hit) {
  event::ServerFault f = Data(hit);
  if (pauses()) {
    if (Status s = servers_->Freeze(fault_.service, true); !s) return s;
    paused_ = true;
    paused_at_ = std::chrono::steady_clock::now();
    f.duration_ms = fault_.duration_ms;
    history_->Add(f);
    return Ok();
  }
  auto out = servers_->KillAndRestart(fault_.service);
  if (!out) return out.error();
  const auto& missing = out.value().missing;
  f.before = out.value().before;
  f.lost = static_cast<int64_t>(missing.size());
  f.missing = std::vector<std::string>(
      missing.begin(),
      missing.begin() + static_cast<long>(std::min(missing.size(), kMissingSample)));
  f.restart_ms = out.value().restart_ms;
  f.error = out.value().error;
  history_->Add(f);
  return Ok();
}

void ServerFaulter::End() {
  if (!paused_) return;
  paused_ = false;
  (void)servers_->Freeze(fault_.service, false);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                  paused_at_)
                .count();
  history_->Add(event::ServerResume{fault_.service, fault_.point, ms});
}

}  // namespace killpoint
