#include "run/trial_services.h"

namespace killpoint {

Result<TrialServices> TrialServices::Start() {
  History unused;  // attached for the start only: Detach lets go of it before it goes
  auto downstream = Downstream::Start(false, &unused);
  if (!downstream) return downstream.error();
  downstream.value()->Detach();
  auto channel = ControlChannel::Start({});
  if (!channel) return channel.error();
  return TrialServices{std::move(downstream.value()), std::move(channel.value())};
}

}  // namespace killpoint
