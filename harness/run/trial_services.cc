#include "run/trial_services.h"

namespace killpoint {

Result<TrialServices> TrialServices::Start(const std::map<std::string, ServiceSpec>& servers,
                                           const std::filesystem::path& root, ServerPool* pool) {
  History unused;  // attached for the start only: Detach lets go of it before it goes
  auto downstream = Downstream::Start(false, &unused);
  if (!downstream) return downstream.error();
  downstream.value()->Detach();
  auto channel = ControlChannel::Start({});
  if (!channel) return channel.error();
  std::shared_ptr<ServiceSet> set;
  if (!servers.empty()) {
    auto started = ServiceSet::Start(servers, root, pool);
    if (!started) return started.error();
    set = std::move(started.value());
  }
  return TrialServices{std::move(downstream.value()), std::move(channel.value()), std::move(set)};
}

}  // namespace killpoint
