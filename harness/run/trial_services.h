// The services a trial's jobs talk to, the downstream and the control channel, kept by a worker
// from one trial to the next. Started and stopped for every trial, their threads (a listener
// each, the channel's loop) cost the harness more than half a millisecond a trial, a third of
// a small job's own time (docs/performance.md, "Where a trial's time goes"). A trial attaches
// them at its start and detaches them at its end (Downstream::Attach, ControlChannel::Reset),
// so that nothing of one trial reaches the next. The scenario's own servers (docs/services.md)
// live here too: started (or borrowed from the run's pool) once per worker, reset at each
// trial's start.
#pragma once

#include <filesystem>
#include <map>
#include <memory>

#include "channel/control_channel.h"
#include "downstream/downstream.h"
#include "scenario/scenario.h"
#include "service/service_set.h"
#include "util/result.h"

namespace killpoint {

struct TrialServices {
  std::unique_ptr<Downstream> downstream;
  std::unique_ptr<ControlChannel> channel;
  // The scenario's servers; null when it names none. Shared: a trial that started its own
  // hands them to its TrialRecord, for the checks after it.
  std::shared_ptr<ServiceSet> servers;

  // Both detached: they serve nobody until a trial attaches them. `servers`: the scenario's
  // services, their files in `root` (the run's sandbox root). Call it from a thread that
  // outlives the servers: they die with the thread that started them (proc/server_process.h).
  // `pool`, when given: the servers are borrowed from it and go back when the last holder of
  // `servers` lets go (service/server_pool.h).
  static Result<TrialServices> Start(const std::map<std::string, ServiceSpec>& servers = {},
                                     const std::filesystem::path& root = {},
                                     ServerPool* pool = nullptr);
};

}  // namespace killpoint
