#include "run/hold_driver.h"

#include <poll.h>
#include <signal.h>

#include <cerrno>

#include "history/event_registry.h"

namespace killpoint {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

namespace {

// Sleeps `ms` of real time, or less if `stop` stops meanwhile (the harness's SIGINT/SIGTERM):
// a pause of minutes must not hold up the stop (proc/interrupt.h; the attempt's wait has already
// returned and killed the group, and Finish joins this thread). Polls the token's self-pipe;
// without one (fd() is -1, which poll ignores) it is a plain sleep.
void SleepUnlessInterrupted(int64_t ms, const StopToken& stop) {
  auto until = Clock::now() + milliseconds(ms);
  while (!stop.stop_requested()) {
    auto left = std::chrono::ceil<milliseconds>(until - Clock::now()).count();  // never short
    if (left <= 0) return;
    pollfd p = {stop.fd(), POLLIN, 0};
    int rc = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 60'000)));
    if (rc > 0) return;
    if (rc < 0 && errno != EINTR) return;
  }
}

}  // namespace

HoldDriver::HoldDriver(const AttemptFault& fault, AttemptState* attempt, HoldAnswer answer,
                       Downstream* downstream, History* history, RunningProcess* first,
                       SecondInstance second, StopToken stop, ServerFaulter* server)
    : attempt_(attempt),
      answer_(std::move(answer)),
      downstream_(downstream),
      history_(history),
      first_(first),
      second_(std::move(second)),
      stop_(stop),
      server_(server),
      pause_ms_(fault.pause.duration_ms),
      hold_ms_(fault.overlap.hold_ms),
      second_holds_at_(fault.overlap.second_holds_at) {
  thread_ = std::thread([this] { Loop(); });
}

HoldDriver::~HoldDriver() { (void)Finish(); }

Status HoldDriver::Finish() {
  if (thread_.joinable()) {
    {
      std::lock_guard lock(first_mu_);
      first_ended_ = true;
    }
    first_cv_.notify_all();
    attempt_->StopHolds();
    thread_.join();
  }
  return error_;
}

void HoldDriver::Loop() {
  while (auto hold = attempt_->NextHold()) Carry(*hold);
}

void HoldDriver::Carry(const AttemptState::Hold& hold) {
  const std::string& point = hold.hit.name;
  const bool server = hold.server && server_ != nullptr;
  if (server) {  // a kill is over (the server back) before the job goes on
    if (Status s = server_->Start(hold.n); !s && error_) error_ = s.error();
  }
  if (hold.pause) {
    first_->SignalGroup(SIGSTOP);
    history_->Add(event::Pause{point, hold.n, pause_ms_});
    // Real time, not the virtual clock: a stopped job is paused to let the world move on
    // without it (a lease expires, another instance takes the lock), and jobs and the
    // stores they use measure that with their own clocks (docs/faults.md).
    SleepUnlessInterrupted(pause_ms_, stop_);
  }
  std::unique_ptr<RunningProcess> second;
  Clock::time_point started;
  if (hold.overlap && !first_ended_ && !stop_.stop_requested()) {
    started = Clock::now();
    second = StartSecond(hold);
  }
  if (hold.pause) {
    first_->SignalGroup(SIGCONT);
    history_->Add(event::Resume{point});
  }
  answer_(hold.hit.connection, attempt_->Release(hold));
  if (server && server_->pauses()) EndServerPause();
  if (second && second_held_) RunThird(*second_held_);
  if (second) EndSecond(std::move(second), started);
}

void HoldDriver::EndServerPause() {
  auto until = Clock::now() + milliseconds(server_->duration_ms());
  while (!first_ended_ && !stop_.stop_requested() && Clock::now() < until) {
    auto left = std::chrono::ceil<milliseconds>(until - Clock::now()).count();
    pollfd p = {stop_.fd(), POLLIN, 0};
    ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 10)));  // first_ended_ within 10 ms
  }
  server_->End();
}

std::unique_ptr<RunningProcess> HoldDriver::Spawn(int instance) {
  auto process = second_.spawn(instance);
  if (!process) {
    if (error_) error_ = process.error();
    return nullptr;
  }
  history_->Add(event::Spawn{process.value()->pid(), nullptr, instance});
  return std::move(process.value());
}

bool HoldDriver::WaitExitOrHeld(RunningProcess* process, milliseconds ms, bool held) {
  if (!held) return process->WaitForExit(ms);
  auto until = Clock::now() + ms;
  while (!stop_.stop_requested() && !attempt_->SecondHeld()) {
    auto left = std::chrono::ceil<milliseconds>(until - Clock::now());
    if (left.count() <= 0) return false;
    // The second's hold is noticed within 10 ms; its exit at once.
    if (process->WaitForExit(std::min(left, milliseconds(10)))) return true;
  }
  return false;
}

std::unique_ptr<RunningProcess> HoldDriver::StartSecond(const AttemptState::Hold& hold) {
  history_->Add(event::Overlap{hold.hit.name, hold_ms_, second_holds_at_});
  downstream_->SetInstance(2);
  attempt_->ExpectSecond();
  auto second = second_.spawn(2);
  if (!second) {
    attempt_->SetSecond(0);
    (void)attempt_->CloseSecondHold();
    downstream_->SetInstance(1);
    if (error_) error_ = second.error();
    return nullptr;
  }
  int pid = second.value()->pid();
  attempt_->SetSecond(pid);
  history_->Add(event::Spawn{pid, nullptr, 2});
  // Bounded by hold_ms whatever the second does: blocked on a lock the held first has, it
  // cannot make the trial wait for ever. Its own timeout still applies.
  bool exited =
      WaitExitOrHeld(second.value().get(), std::min(milliseconds(hold_ms_), second_.timeout),
                     !second_holds_at_.empty());
  event::OverlapEnd end{hold.hit.name, exited, std::nullopt};
  if (!second_holds_at_.empty()) {
    // From now on the second's hit there goes on at once: nothing would answer it.
    second_held_ = attempt_->CloseSecondHold();
    if (second_held_) history_->Add(event::SecondHeld{second_holds_at_, 2});
    end.second_held = second_held_.has_value();
  }
  history_->Add(end);
  // From now on both may run; a held second sends nothing.
  downstream_->SetInstance(exited || second_held_ ? 1 : 0);
  return std::move(second.value());
}

void HoldDriver::RunThird(uint64_t held) {
  {  // the first goes on to its end, bounded by its own timeout (the runner's Wait)
    std::unique_lock lock(first_mu_);
    while (!first_ended_ && !stop_.stop_requested())
      first_cv_.wait_for(lock, milliseconds(10));  // a stop is noticed within 10 ms
  }
  std::unique_ptr<RunningProcess> third;
  Clock::time_point started = Clock::now();
  if (!stop_.stop_requested()) {
    downstream_->SetInstance(3);  // the first has ended, the second is held
    attempt_->ExpectThird();
    third = Spawn(3);
    attempt_->SetThird(third ? third->pid() : 0);
  }
  bool exited = false;
  if (third) {
    // Bounded by hold_ms as the second's: a third blocked on what the held second has cannot
    // make the trial wait for ever.
    exited = third->WaitForExit(std::min(milliseconds(hold_ms_), second_.timeout));
    if (exited) {  // its exit before the second goes on, as it happened
      second_.exited(3, third->Wait(second_.timeout));
      third.reset();
    }
  }
  history_->Add(event::SecondRelease{second_holds_at_, exited, 2});
  attempt_->ReleasedSecond();
  downstream_->SetInstance(third ? 0 : 2);
  answer_(held, HitAnswer::Continue());
  if (third) {
    auto left = std::chrono::duration_cast<milliseconds>(started + second_.timeout - Clock::now());
    second_.exited(3, third->Wait(std::max(left, milliseconds(0))));
  }
}

void HoldDriver::EndSecond(std::unique_ptr<RunningProcess> second, Clock::time_point started) {
  auto left = std::chrono::duration_cast<milliseconds>(started + second_.timeout - Clock::now());
  ExitStatus status = second->Wait(std::max(left, milliseconds(0)));
  second_.exited(2, status);
  downstream_->SetInstance(1);
}

}  // namespace killpoint
