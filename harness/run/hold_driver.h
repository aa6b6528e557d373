// Carries out the pauses and overlaps of one attempt (docs/faults.md) on a thread of its own,
// while the runner waits for the attempt: the control channel holds the job at the point
// (AttemptState::OnHit answers kHold) and goes on serving other connections, and this driver
//   pause:   SIGSTOPs the attempt's process group, sleeps duration_ms of real time, SIGCONTs it;
//   overlap: starts a second instance of the same date and waits until it exits or hold_ms
//            passes (after the pause's sleep, before SIGCONT, when both fall on one point);
//            with second_holds_at, or until the second is held there; then, once the first
//            has ended, starts a third instance, waits until it exits or hold_ms passes, and
//            lets the second go on (docs/faults.md, "Three instances");
//   server:  kills and restarts the server (before the answer), or SIGSTOPs it and, once the hit
//            is answered, SIGCONTs it after duration_ms or when the attempt ends
//            (run/server_faults.h; docs/services.md, "Server faults");
// then answers the held hit (continue, or the planned kill if it falls there), and waits for the
// second instance to end under its own job timeout.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "channel/control_channel.h"
#include "downstream/downstream.h"
#include "history/history.h"
#include "plan/plan.h"
#include "proc/process.h"
#include "proc/stop_token.h"
#include "run/attempt_state.h"
#include "run/server_faults.h"
#include "util/result.h"

namespace killpoint {

// How the runner starts the second (and third) instance of an overlap and records its end.
// Answers a held hit by the connection (or, for a command to a service, the ticket) it was held
// with: the control channel's Answer, or the fault proxy's Release.
using HoldAnswer = std::function<void(uint64_t connection, const HitAnswer& answer)>;

struct SecondInstance {
  std::function<Result<std::unique_ptr<RunningProcess>>(int instance)> spawn;  // 2 or 3
  std::function<void(int instance, const ExitStatus&)> exited;  // records its exit event
  std::chrono::milliseconds timeout{10000};                     // the job's timeout, from its spawn
};

class HoldDriver {
 public:
  // Every pointer must outlive the driver; `first` until Finish returned. `server`: the attempt's
  // server fault, null when it has none. Once `stop` stops
  // (the harness's SIGINT/SIGTERM), a pause's sleep ends and no second instance starts.
  HoldDriver(const AttemptFault& fault, AttemptState* attempt, HoldAnswer answer,
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
  // Starts an instance (2 or 3) and records its spawn; null (and error_ set) if it could not.
  std::unique_ptr<RunningProcess> Spawn(int instance);
  // Waits until `process` exits (true), or `ms` passes, or the second is held when `held` is
  // set (false), or the harness is stopped.
  bool WaitExitOrHeld(RunningProcess* process, std::chrono::milliseconds ms, bool held);
  std::unique_ptr<RunningProcess> StartSecond(const AttemptState::Hold& hold);
  // The second held at second_holds_at (`held`: its hit's connection): once the first ended,
  // a third instance runs, then the second goes on.
  void RunThird(uint64_t held);
  void EndSecond(std::unique_ptr<RunningProcess> second,
                 std::chrono::steady_clock::time_point started);

  AttemptState* attempt_;
  HoldAnswer answer_;
  Downstream* downstream_;
  History* history_;
  RunningProcess* first_;
  SecondInstance second_;
  StopToken stop_;
  ServerFaulter* server_;
  int64_t pause_ms_ = 0;
  int64_t hold_ms_ = 0;
  std::string second_holds_at_;
  std::optional<uint64_t> second_held_;  // the driver thread's: the second's held hit
  std::atomic<bool> first_ended_{false};
  std::mutex first_mu_;
  std::condition_variable first_cv_;  // first_ended_ set
  Status error_ = Ok();               // the driver thread's until joined
  std::thread thread_;
};

}  // namespace killpoint
