#include "channel/interception.h"

#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>

namespace killpoint {

std::string_view NameOf(Interception i) { return kInterceptionNames.NameOf(i); }

std::optional<Interception> ParseInterception(std::string_view name) {
  return kInterceptionNames.Named(name);
}

std::filesystem::path InterceptorPath(Interception i, const std::filesystem::path& bindir) {
  return bindir / (i == Interception::kSeccomp ? "killpoint-supervise" : "libkillpoint_shim.so");
}

namespace {

// In a child: installs a filter that allows everything but asks for a listener, with the flags
// the supervisor uses, then waits on `hold` until the parent has taken a descriptor of it. Exit
// 0 when the kernel took the filter, else errno.
[[noreturn]] void ProbeChild(int hold) {
  sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  sock_fprog prog{1, &allow};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) _exit(errno);
  long fd =
      syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
              SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, &prog);
  int err = fd < 0 ? (errno != 0 ? errno : 1) : 0;
  char byte;
  while (read(hold, &byte, 1) < 0 && errno == EINTR) {
  }
  _exit(err);
}

// The supervisor performs a job's calls through duplicates of its descriptors: pidfd_getfd
// must work on a child (a container's default seccomp profile refuses it without
// CAP_SYS_PTRACE). 0, or errno.
int CanTakeDescriptorOf(pid_t child) {
  int pidfd = static_cast<int>(syscall(SYS_pidfd_open, child, 0));
  if (pidfd < 0) return errno;
  int fd = static_cast<int>(syscall(SYS_pidfd_getfd, pidfd, 0, 0));
  int err = fd < 0 ? errno : 0;
  if (fd >= 0) close(fd);
  close(pidfd);
  return err;
}

Status Probe() {
  int hold[2];
  if (pipe2(hold, O_CLOEXEC) != 0) return Error::Harness(std::string("pipe: ") + strerror(errno));
  pid_t pid = fork();
  if (pid < 0) return Error::Harness(std::string("fork: ") + strerror(errno));
  if (pid == 0) {
    close(hold[1]);
    ProbeChild(hold[0]);
  }
  close(hold[0]);
  int getfd = CanTakeDescriptorOf(pid);
  close(hold[1]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  int err = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::string why = err > 0      ? std::string("seccomp user notification: ") + strerror(err)
                    : err < 0    ? "the probe died"
                    : getfd != 0 ? std::string("pidfd_getfd: ") + strerror(getfd)
                                 : "";
  if (why.empty()) return Ok();
  return Error::BadInput("the seccomp supervisor cannot run here (" + why +
                         "): it needs Linux 5.19 or later and a seccomp policy that allows "
                         "seccomp(2) and pidfd_getfd(2); use --intercept preload");
}

}  // namespace

Status SeccompAvailable() {
  static std::once_flag once;
  static Status result = Ok();
  std::call_once(once, [] { result = Probe(); });
  return result;
}

Interception DefaultInterception() {
  return SeccompAvailable() ? Interception::kSeccomp : Interception::kPreload;
}

}  // namespace killpoint
