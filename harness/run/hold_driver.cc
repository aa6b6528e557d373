#include "run/hold_driver.h"

#include <poll.h>
#include <signal.h>

#include <cerrno>

namespace killpoint {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

namespace {

// Sleeps `ms` of real time, or less if `stop` stops meanwhile (the harness's SIGINT/SIGTERM):
// a pause of minutes must not hold up the stop (interrupt.h; the attempt's wait has already
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

HoldDriver::HoldDriver(const AttemptFault& fault, AttemptState* attempt, ControlChannel* channel,
                       Downstream* downstream, History* history, RunningProcess* first,
                       SecondInstance second, StopToken stop, ServerFaulter* server)
    : attempt_(attempt),
      channel_(channel),
      downstream_(downstream),
      history_(history),
      first_(first),
      second_(std::move(second)),
      stop_(stop),
      server_(server),
      pause_ms_(fault.pause.duration_ms),
      hold_ms_(fault.overlap.hold_ms) {
  thread_ = std::thread([this] { Loop(); });
}

HoldDriver::~HoldDriver() { (void)Finish(); }

Status HoldDriver::Finish() {
  if (thread_.joinable()) {
    first_ended_ = true;
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
    history_->Add(event::kPause, {{"point", point}, {"hit", hold.n}, {"duration_ms", pause_ms_}});
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
    history_->Add(event::kResume, {{"point", point}});
  }
  channel_->Answer(hold.hit.connection, attempt_->Release(hold));
  if (server && server_->pauses()) EndServerPause();
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

std::unique_ptr<RunningProcess> HoldDriver::StartSecond(const AttemptState::Hold& hold) {
  history_->Add(event::kOverlap, {{"point", hold.hit.name}, {"hold_ms", hold_ms_}});
  downstream_->SetInstance(2);
  attempt_->ExpectSecond();
  auto second = second_.spawn();
  if (!second) {
    attempt_->SetSecond(0);
    downstream_->SetInstance(1);
    if (error_) error_ = second.error();
    return nullptr;
  }
  int pid = second.value()->pid();
  attempt_->SetSecond(pid);
  history_->Add(event::kSpawn, {{"pid", pid}, {"instance", 2}});
  // Bounded by hold_ms whatever the second does: blocked on a lock the held first has, it
  // cannot make the trial wait for ever. Its own timeout still applies.
  bool exited = second.value()->WaitForExit(std::min(milliseconds(hold_ms_), second_.timeout));
  history_->Add(event::kOverlapEnd, {{"point", hold.hit.name}, {"second_exited", exited}});
  downstream_->SetInstance(exited ? 1 : 0);  // from now on both may run
  return std::move(second.value());
}

void HoldDriver::EndSecond(std::unique_ptr<RunningProcess> second, Clock::time_point started) {
  auto left = std::chrono::duration_cast<milliseconds>(started + second_.timeout - Clock::now());
  ExitStatus status = second->Wait(std::max(left, milliseconds(0)));
  second_.exited(status);
  downstream_->SetInstance(1);
}

}  // namespace killpoint
