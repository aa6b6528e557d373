// The services a trial's jobs talk to, the downstream and the control channel, kept by a worker
// from one trial to the next. Started and stopped for every trial, their threads (a listener
// each, the channel's loop) cost the harness more than half a millisecond a trial, a third of
// a small job's own time (docs/performance.md, "Where a trial's time goes"). A trial attaches
// them at its start and detaches them at its end (Downstream::Attach, ControlChannel::Reset),
// so that nothing of one trial reaches the next.
#pragma once

#include <memory>

#include "run/control_channel.h"
#include "run/downstream.h"
#include "util/result.h"

namespace killpoint {

struct TrialServices {
  std::unique_ptr<Downstream> downstream;
  std::unique_ptr<ControlChannel> channel;

  // Both detached: they serve nobody until a trial attaches them.
  static Result<TrialServices> Start();
};

}  // namespace killpoint
