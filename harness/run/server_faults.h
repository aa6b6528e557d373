// Carries out an attempt's server fault (docs/services.md, "Server faults") for the HoldDriver,
// while the job is held at its point, and records it in the history:
//   kill:  the service's data read, every process of its server SIGKILLed, the server started
//          again on the same data and port, the data read again; a server_fault event with
//          what the restarted server lacks (check/server_fault_checks.cc judges it);
//   pause: every process of the server SIGSTOPped (server_fault), later SIGCONTed
//          (server_resume).
#pragma once

#include <chrono>
#include <string>

#include "history/events/services.h"
#include "history/history.h"
#include "plan/plan.h"
#include "scenario/scenario.h"
#include "service/service_set.h"
#include "util/result.h"

namespace killpoint {

class ServerFaulter {
 public:
  // Every pointer must outlive this.
  ServerFaulter(const ServerFault& fault, const ServiceSpec& spec, ServiceSet* servers,
                History* history)
      : fault_(fault), spec_(spec), servers_(servers), history_(history) {}

  bool pauses() const { return fault_.action == ServerAction::kPause; }
  int64_t duration_ms() const { return fault_.duration_ms; }
  // The fault, at the `hit`-th pass of its point. An Error: the killed server did not come back.
  Status Start(int hit);
  // The end of a pause (SIGCONT), once; nothing for a kill.
  void End();

 private:
  event::ServerFault Data(int hit) const;

  ServerFault fault_;
  ServiceSpec spec_;
  ServiceSet* servers_;
  History* history_;
  bool paused_ = false;
  std::chrono::steady_clock::time_point paused_at_;
};

}  // namespace killpoint
