#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "proc/job_cgroup.h"
#include "proc/orphan_guard.h"
#include "proc/process_tag.h"

namespace killpoint {
namespace {

constexpr int kGuardFd = 3;
int g_write_end = -1;  // the harness's end of the pipe

// The guard is not one of the processes a tag sweep should kill: it ends by itself once its
// harness is gone, and it must live to do its work. A harness that runs under another harness
// (or a test that spawns killpoint) carries that one's tag, which the guard inherited: rename
// the variable in place, in the memory /proc/self/environ reads, so that no sweep matches it.
void HideFromTagSweeps() {
  const std::string name = std::string(kProcessTagVariable) + "=";
  for (char** e = ::environ; *e; ++e) {
    if (std::strncmp(*e, name.c_str(), name.size()) == 0) (*e)[0] = '_';
  }
}

[[noreturn]] void Guard(int read_end, pid_t harness, const std::filesystem::path& cgroup) {
  HideFromTagSweeps();
  ::setsid();
  ::signal(SIGINT, SIG_IGN);
  ::signal(SIGHUP, SIG_IGN);
  int null = ::open("/dev/null", O_RDWR);
  if (null >= 0) {
    for (int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) ::dup2(null, fd);
  }
  ::dup2(read_end, kGuardFd);
  ::close_range(kGuardFd + 1, ~0U, 0);  // nothing of the harness's stays open in here
  std::string told;                     // folders to remove, one a line
  char buf[4096];
  while (true) {
    ssize_t n = ::read(kGuardFd, buf, sizeof buf);
    if (n == 0 || (n < 0 && errno != EINTR)) break;
    if (n > 0) told.append(buf, static_cast<size_t>(n));
  }
  KillTaggedBy(harness);
  if (!cgroup.empty()) KillAndRemoveCgroup(cgroup);  // what cleared its tag too (job_cgroup.h)
  for (size_t at = 0, end; (end = told.find('\n', at)) != std::string::npos; at = end + 1) {
    std::error_code ec;
    std::filesystem::remove_all(told.substr(at, end - at), ec);
  }
  ::_exit(0);
}

}  // namespace

Status StartOrphanGuard() {
  static bool started = false;
  if (started) return Ok();
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    return Error::Harness(std::string("pipe2: ") + std::strerror(errno));
  pid_t harness = ::getpid();
  // Without a cgroup (not root, no delegated tree) the tag and the subreaper still cover every
  // escape while the harness lives; docs/hardening.md says what is left when it is killed.
  auto cgroup = CreateJobCgroup();
  std::filesystem::path cgroup_dir = cgroup ? cgroup.value() : std::filesystem::path();
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    if (!cgroup_dir.empty()) KillAndRemoveCgroup(cgroup_dir);
    return Error::Harness(std::string("cannot start the orphan guard: fork: ") +
                          std::strerror(errno));
  }
  if (pid == 0) {
    ::close(fds[1]);
    Guard(fds[0], harness, cgroup_dir);
  }
  // The write end stays open (close-on-exec, so no job inherits it) until the harness is gone.
  ::close(fds[0]);
  g_write_end = fds[1];
  started = true;
  return Ok();
}

void RemoveOnHarnessDeath(const std::filesystem::path& dir) {
  if (g_write_end < 0) return;
  std::string line = dir.string() + "\n";
  if (line.find('\n') != line.size() - 1) return;  // a newline in the name cannot be told
  const char* p = line.data();
  size_t left = line.size();
  while (left > 0) {
    ssize_t n = ::write(g_write_end, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    p += n;
    left -= static_cast<size_t>(n);
  }
}

}  // namespace killpoint
