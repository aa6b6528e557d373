#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <string>

#include "proc/interrupt.h"

namespace killpoint {
namespace {

std::atomic<pid_t> g_groups[kForegroundSlots];  // 0: a free slot
std::atomic<bool> g_installed{false};
static_assert(std::atomic<pid_t>::is_always_lock_free,
              "the handler may only touch lock-free atomics");

// Never destroyed: a handler may run until _exit. InstallInterruptHandlers makes it before it
// installs them, so a handler only ever reads the initialized static.
StopSource& Interrupts() {
  static StopSource* const source = new StopSource;
  return *source;
}

void Record(int signal) {
  if (!Interrupts().RequestStop(signal)) {
    // A second signal: the shutdown is taking too long for someone. End now.
    for (auto& slot : g_groups) {
      pid_t group = slot.load();
      if (group > 0) ::kill(-group, SIGKILL);
    }
    ::_exit(128 + signal);
  }
}

void Handler(int signal) { Record(signal); }

}  // namespace

void InstallInterruptHandlers() {
  if (g_installed.exchange(true)) return;
  Interrupts().OpenPipe();  // without it, nothing wakes a wait: the token is still read
  struct sigaction sa {};
  sa.sa_handler = Handler;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
}

StopToken InterruptToken() { return Interrupts().token(); }

int InterruptSignal() { return InterruptToken().signal(); }

int InterruptFd() { return InterruptToken().fd(); }

const char* InterruptName(int signal) {
  if (signal == SIGINT) return "SIGINT";
  if (signal == SIGTERM) return "SIGTERM";
  static thread_local std::string other;
  other = "signal " + std::to_string(signal);
  return other.c_str();
}

void RequestInterrupt(int signal) { Record(signal); }

void ResetInterruptForTests() { Interrupts().Reset(); }

void AddForegroundGroup(pid_t group) {
  for (auto& slot : g_groups) {
    pid_t free = 0;
    if (slot.compare_exchange_strong(free, group)) return;
  }
}

void RemoveForegroundGroup(pid_t group) {
  for (auto& slot : g_groups) {
    pid_t mine = group;
    if (slot.compare_exchange_strong(mine, 0)) return;
  }
}

}  // namespace killpoint
