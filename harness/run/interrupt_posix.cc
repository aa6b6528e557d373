#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <string>

#include "run/interrupt.h"

namespace killpoint {
namespace {

std::atomic<int> g_signal{0};
std::atomic<pid_t> g_groups[kForegroundSlots];  // 0: a free slot
int g_pipe[2] = {-1, -1};
std::atomic<bool> g_installed{false};
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<pid_t>::is_always_lock_free,
              "the handler may only touch lock-free atomics");

void Record(int signal) {
  int expected = 0;
  if (!g_signal.compare_exchange_strong(expected, signal)) {
    // A second signal: the shutdown is taking too long for someone. End now.
    for (auto& slot : g_groups) {
      pid_t group = slot.load();
      if (group > 0) ::kill(-group, SIGKILL);
    }
    ::_exit(128 + signal);
  }
  if (g_pipe[1] >= 0) {
    int saved = errno;  // the handler must not change errno under the interrupted code
    char byte = 1;
    while (::write(g_pipe[1], &byte, 1) < 0 && errno == EINTR) {
    }
    errno = saved;
  }
}

void Handler(int signal) { Record(signal); }

}  // namespace

void InstallInterruptHandlers() {
  if (g_installed.exchange(true)) return;
  if (::pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0) g_pipe[0] = g_pipe[1] = -1;
  struct sigaction sa {};
  sa.sa_handler = Handler;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
}

int InterruptSignal() { return g_signal.load(); }

int InterruptFd() { return g_pipe[0]; }

const char* InterruptName(int signal) {
  if (signal == SIGINT) return "SIGINT";
  if (signal == SIGTERM) return "SIGTERM";
  static thread_local std::string other;
  other = "signal " + std::to_string(signal);
  return other.c_str();
}

void RequestInterrupt(int signal) { Record(signal); }

void ResetInterruptForTests() {
  char buf[64];
  if (g_pipe[0] >= 0) {
    while (::read(g_pipe[0], buf, sizeof buf) > 0) {
    }
  }
  g_signal.store(0);
}

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
