// Carries out the pauses and overlaps of one attempt (docs/faults.md) on a thread of its own,
// while the runner waits for the attempt: the control channel holds the job at the point
// (AttemptState::OnHit answers kHold) and goes on serving other connections, and this driver
//   pause:   SIGSTOPs the attempt's process group, sleeps duration_ms of real time, SIGCONTs it;
//   overlap: starts a second instance of the same date and waits until it exits or hold_ms
//            passes (after the pause's sleep, before SIGCONT, when both fall on one point);
//   server:  kills and restarts the server (before the answer), or SIGSTOPs it and, once the hit
//            is answered, SIGCONTs it after duration_ms or when the attempt ends
//            (run/server_faults.h; docs/services.md, "Server faults");
// then answers the held hit (continue, or the planned kill if it falls there), and waits for the
// second instance to end under its own job timeout.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <thread>

#include "history/history.h"
#include "plan/plan.h"
#include "run/attempt_state.h"
#include "run/control_channel.h"
#include "run/downstream.h"
#include "run/process.h"
#include "run/server_faults.h"
#include "run/stop_token.h"
#include "util/result.h"

namespace killpoint {

// How the runner starts the second instance of an overlap and records its end.
struct SecondInstance {
  std::function<Result<std::unique_ptr<RunningProcess>>()> spawn;
  std::function<void(const ExitStatus&)> exited;  // records its exit event
  std::chrono::milliseconds timeout{10000};       // the job's timeout, from its spawn
};

class HoldDriver {
 public:
  // Every pointer must outlive the driver; `first` until Finish returned. `server`: the attempt's
  // server fault, null when it has none. Once `stop` stops
  // (the harness's SIGINT/SIGTERM), a pause's sleep ends and no second instance starts.
  HoldDriver(const AttemptFault& fault, AttemptState* attempt, ControlChannel* channel,
             Downstream* downstream, History* history, RunningProcess* first, SecondInstance second,
             StopToken stop, ServerFaulter* server = nullptr);
  ~HoldDriver();

  // The first instance has ended: no new hold starts; the one under way is completed, the
  // second instance waited for. Returns the error of a second instance that could not start.
  Status Finish();

 private:
  void Loop();
  void Carry(const AttemptState::Hold& hold);
  // A server paused at `hold` stays stopped duration_ms, or until the attempt ends or the
  // harness is stopped, then goes on.
  void EndServerPause();
  std::unique_ptr<RunningProcess> StartSecond(const AttemptState::Hold& hold);
  void EndSecond(std::unique_ptr<RunningProcess> second,
                 std::chrono::steady_clock::time_point started);

  AttemptState* attempt_;
  ControlChannel* channel_;
  Downstream* downstream_;
  History* history_;
  RunningProcess* first_;
  SecondInstance second_;
  StopToken stop_;
  ServerFaulter* server_;
  int64_t pause_ms_ = 0;
  int64_t hold_ms_ = 0;
  std::atomic<bool> first_ended_{false};
  Status error_ = Ok();  // the driver thread's until joined
  std::thread thread_;
};

}  // namespace killpoint
