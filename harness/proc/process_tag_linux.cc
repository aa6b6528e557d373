// The tag sweep reads /proc/<pid>/environ. A pid is opened as a pidfd before its environment
// is checked and the signal goes through that pidfd, so a pid reused in between is never hit.
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "proc/process_tag.h"
#include "proc/server_process.h"

namespace killpoint {
namespace {

constexpr int kMaxRounds = 1000;     // a fork bomb may outrun one scan, not a thousand
constexpr int kExitWaitMs = 10'000;  // a process in uninterruptible sleep is left behind
constexpr size_t kMaxEnvironBytes = 1 << 20;

bool ReadEnviron(pid_t pid, std::string& out) {
  std::string path = "/proc/" + std::to_string(pid) + "/environ";
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  out.clear();
  char buf[16384];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0 || out.size() > kMaxEnvironBytes) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return true;
}

// Whether the environment of `pid` has the entry `entry` (or, with `prefix`, one that starts
// with it).
bool Carries(pid_t pid, std::string_view entry, bool prefix) {
  std::string env;
  if (!ReadEnviron(pid, env)) return false;
  for (size_t at = 0; at < env.size();) {
    size_t end = env.find('\0', at);
    if (end == std::string::npos) end = env.size();
    std::string_view have = std::string_view(env).substr(at, end - at);
    if (prefix ? have.substr(0, entry.size()) == entry : have == entry) return true;
    at = end + 1;
  }
  return false;
}

std::vector<pid_t> ListPids() {
  std::vector<pid_t> pids;
  DIR* proc = ::opendir("/proc");
  if (!proc) return pids;
  while (dirent* e = ::readdir(proc)) {
    char* end = nullptr;
    long pid = std::strtol(e->d_name, &end, 10);
    if (end && *end == '\0' && pid > 0) pids.push_back(static_cast<pid_t>(pid));
  }
  ::closedir(proc);
  return pids;
}

// The process group of `pid`, from /proc/<pid>/stat ("pid (comm) state ppid pgrp ..."; comm
// may hold spaces and parentheses, so fields are counted from the last ')'). -1 if unknown.
// Field `index` (1: state, 2: ppid, 3: pgrp) of /proc/<pid>/stat ("pid (comm) state ppid pgrp
// ..."; comm may hold spaces and parentheses, so fields are counted from the last ')'). Empty if
// unknown.
std::string StatField(pid_t pid, int index) {
  int fd = ::open(("/proc/" + std::to_string(pid) + "/stat").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  char buf[1024];
  ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return "";
  std::string_view stat(buf, static_cast<size_t>(n));
  size_t paren = stat.rfind(')');
  if (paren == std::string_view::npos) return "";
  size_t at = paren + 1;
  for (int field = 1; at < stat.size(); ++field) {
    while (at < stat.size() && stat[at] == ' ') ++at;
    size_t end = stat.find(' ', at);
    if (end == std::string_view::npos) end = stat.size();
    if (field == index) return std::string(stat.substr(at, end - at));
    at = end;
  }
  return "";
}

pid_t PidField(pid_t pid, int index) {
  std::string field = StatField(pid, index);
  return field.empty() ? -1 : static_cast<pid_t>(std::strtol(field.c_str(), nullptr, 10));
}

// The process group of `pid`; -1 if unknown.
pid_t GroupOf(pid_t pid) { return PidField(pid, 3); }

// The program `pid` runs ("" for a zombie or a process gone).
std::string ExeOf(pid_t pid) {
  char buf[4096];
  ssize_t n = ::readlink(("/proc/" + std::to_string(pid) + "/exe").c_str(), buf, sizeof buf);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
}

// Kills `pid` if it carries the entry; true if it did, with its process group in `pgrp`.
bool KillIfTagged(pid_t pid, const std::string& entry, bool prefix, pid_t& pgrp) {
  if (!Carries(pid, entry, prefix))
    return false;  // the cheap filter, for every process on the machine
  int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (pidfd < 0) return false;  // gone already
  pgrp = GroupOf(pid);
  bool tagged = Carries(pid, entry, prefix);  // still the same process: the pidfd pins it
  if (tagged && ::syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, nullptr, 0) == 0) {
    pollfd p{pidfd, POLLIN, 0};
    while (::poll(&p, 1, kExitWaitMs) < 0 && errno == EINTR) {
    }
  }
  ::close(pidfd);
  return tagged;
}

// The pids a process created since `first` was can have. Processes are numbered in creation
// order until the kernel wraps its pids around, so while the last pid it gave out is still
// >= first, a sweep for the descendants of a leader `first` need not open /proc/PID/environ of
// the machine's older processes: measured, that was a third of the harness's CPU
// (docs/performance.md). And when the last pid given out is `first` itself, no process at all
// was created since, so the leader is the only candidate and /proc need not even be listed:
// the common case of a job that starts no process. Only a whole cycle of pid_max (at least
// 32768) process creations between two reads would fool either.
struct Candidates {
  pid_t floor = 0;  // the smallest candidate pid (0: every pid)
  bool only_first = false;
};

Candidates CandidatesSince(pid_t first) {
  if (first <= 0) return {};
  int fd = ::open("/proc/sys/kernel/ns_last_pid", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  char buf[32];
  ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return {};
  buf[n] = '\0';
  long last = std::strtol(buf, nullptr, 10);
  if (last < first) return {};
  return {first, last == first};
}

// Kills every process (but this one) carrying `entry` (or an entry starting with it, with
// `prefix`) until a scan finds none; returns how many were outside `group`. `first`: the pid
// of the first process that can carry it (0: unknown).
int KillCarrying(const std::string& entry, bool prefix, int group, pid_t first) {
  const pid_t self = ::getpid();
  int outside = 0;
  for (int round = 0; round < kMaxRounds; ++round) {
    int found = 0;
    const Candidates candidates = CandidatesSince(first);
    const std::vector<pid_t> pids = candidates.only_first ? std::vector<pid_t>{first} : ListPids();
    for (pid_t pid : pids) {
      if (pid == self || pid < candidates.floor) continue;
      pid_t pgrp = -1;
      if (!KillIfTagged(pid, entry, prefix, pgrp)) continue;
      ++found;
      // A member of the group is dying of the group's SIGKILL already: not a stray.
      if (group <= 0 || pgrp != group) ++outside;
    }
    if (found == 0) break;
  }
  return outside;
}

}  // namespace

std::string NewProcessTag() {
  static std::atomic<uint64_t> counter{0};
  return std::to_string(::getpid()) + "." + std::to_string(++counter);
}

std::string NewServerTag() {
  static std::atomic<uint64_t> counter{0};
  return std::to_string(::getpid()) + ".server" + std::to_string(++counter);
}

int KillTagged(const std::string& tag, int group) {
  // The group's leader is the first process of its tag: every other one descends from it.
  return KillCarrying(std::string(kProcessTagVariable) + "=" + tag, false, group, group);
}

int KillTaggedBy(int harness) {
  return KillCarrying(std::string(kProcessTagVariable) + "=" + std::to_string(harness) + ".", true,
                      0, 0);
}

namespace {
// Set once this process is a subreaper: before, every child it has is one it made itself.
std::atomic<bool> g_subreaper{false};
}  // namespace

bool BecomeSubreaper() {
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) return false;
  g_subreaper = true;
  return true;
}

int KillAdoptedOrphans(pid_t first) {
  if (!g_subreaper.load()) return 0;
  const pid_t self = ::getpid();
  const std::string own_exe = ExeOf(self);
  const std::string server_tag =
      std::string(kProcessTagVariable) + "=" + std::to_string(self) + ".server";
  int killed = 0;
  for (int round = 0; round < kMaxRounds; ++round) {
    const Candidates candidates = CandidatesSince(first);
    if (candidates.only_first) break;  // no process was created since the leader
    int found = 0;
    for (pid_t pid : ListPids()) {
      if (pid < candidates.floor || PidField(pid, 2) != self) continue;
      const std::string exe = ExeOf(pid);
      if (!exe.empty() && exe == own_exe) continue;  // forked by the harness, not exec'd
      if (Carries(pid, server_tag, true)) continue;  // a scenario's server (NewServerTag)
      if (IsServerProcess(pid)) continue;            // one whose title hides its tag
      int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
      if (pidfd < 0) continue;
      // Still our child (the pidfd pins the process: not a reused pid). A zombie, which ended
      // on its own, is only reaped.
      bool ours = PidField(pid, 2) == self;
      bool zombie = StatField(pid, 1) == "Z";
      bool killed_now =
          ours && !zombie && ::syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, nullptr, 0) == 0;
      ::close(pidfd);
      if (!killed_now && !(ours && zombie)) continue;
      ++found;
      if (killed_now) ++killed;
      while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
    if (found == 0) break;
  }
  return killed;
}

}  // namespace killpoint
