// What the control channel needs to know about the attempt that is running: the process to
// kill and where. Shared by the runner thread and the control channel's thread.
#pragma once

#include <condition_variable>
#include <map>
#include <mutex>
#include <string>

#include "history/history.h"
#include "plan/plan.h"
#include "run/control_channel.h"
#include "run/process.h"

namespace killpoint {

class AttemptState {
 public:
  explicit AttemptState(History* history) : history_(history) {}

  // The runner arms the attempt before spawning it and attaches the process once Spawn has
  // returned; a hit that arrives in between waits for the attach, so no planned kill is missed.
  void Arm(const AttemptFault& fault);
  void Attach(RunningProcess* process);
  // Detaches the process; returns whether the planned kill happened.
  bool Finish();

  // Control channel handler: records the hit and kills the process at the planned point.
  bool OnHit(const FailpointHit& hit);

 private:
  std::mutex mu_;
  History* history_;
  AttemptFault fault_;                // guarded by mu_
  RunningProcess* process_ = nullptr;  // guarded by mu_
  std::map<std::string, int> hits_;   // guarded by mu_
  bool killed_ = false;               // guarded by mu_
  bool armed_ = false;                // guarded by mu_
  std::condition_variable attached_;
};

}  // namespace killpoint
