#include "run/server_faults.h"

namespace killpoint {
namespace {

constexpr size_t kMissingSample = 5;  // the rows or keys an event names

}  // namespace

nlohmann::json ServerFaulter::Data(int hit) const {
  return {{"service", fault_.service}, {"kind", spec_.kind},    {"durability", spec_.durability},
          {"action", fault_.action},   {"point", fault_.point}, {"hit", hit}};
}

Status ServerFaulter::Start(int hit) {
  nlohmann::json data = Data(hit);
  if (pauses()) {
    if (Status s = servers_->Freeze(fault_.service, true); !s) return s;
    paused_ = true;
    paused_at_ = std::chrono::steady_clock::now();
    data["duration_ms"] = fault_.duration_ms;
    history_->Add(event::kServerFault, data);
    return Ok();
  }
  auto out = servers_->KillAndRestart(fault_.service);
  if (!out) return out.error();
  const auto& missing = out.value().missing;
  data["before"] = out.value().before;
  data["lost"] = missing.size();
  data["missing"] = std::vector<std::string>(
      missing.begin(),
      missing.begin() + static_cast<long>(std::min(missing.size(), kMissingSample)));
  data["restart_ms"] = out.value().restart_ms;
  if (!out.value().error.empty()) data["error"] = out.value().error;
  history_->Add(event::kServerFault, data);
  return Ok();
}

void ServerFaulter::End() {
  if (!paused_) return;
  paused_ = false;
  (void)servers_->Freeze(fault_.service, false);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                  paused_at_)
                .count();
  history_->Add(event::kServerResume,
                {{"service", fault_.service}, {"point", fault_.point}, {"paused_ms", ms}});
}

}  // namespace killpoint
