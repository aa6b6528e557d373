#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "run/orphan_guard.h"
#include "run/process_tag.h"

namespace killpoint {
namespace {

constexpr int kGuardFd = 3;

[[noreturn]] void Guard(int read_end, pid_t harness) {
  ::setsid();
  ::signal(SIGINT, SIG_IGN);
  ::signal(SIGHUP, SIG_IGN);
  int null = ::open("/dev/null", O_RDWR);
  if (null >= 0) {
    for (int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) ::dup2(null, fd);
  }
  ::dup2(read_end, kGuardFd);
  ::close_range(kGuardFd + 1, ~0U, 0);  // nothing of the harness's stays open in here
  char byte;
  while (true) {
    ssize_t n = ::read(kGuardFd, &byte, 1);
    if (n == 0 || (n < 0 && errno != EINTR)) break;
  }
  KillTaggedBy(harness);
  ::_exit(0);
}

}  // namespace

Status StartOrphanGuard() {
  static bool started = false;
  if (started) return Ok();
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return Error::Harness(std::string("pipe2: ") + std::strerror(errno));
  pid_t harness = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return Error::Harness(std::string("cannot start the orphan guard: fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::close(fds[1]);
    Guard(fds[0], harness);
  }
  // The write end stays open (close-on-exec, so no job inherits it) until the harness is gone.
  ::close(fds[0]);
  started = true;
  return Ok();
}

}  // namespace killpoint
