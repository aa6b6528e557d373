// killpoint-supervise [--] CMD ARGS...: runs CMD under the seccomp supervisor (supervisor.h).
// Without KILLPOINT_CTL and KILLPOINT_WORKDIR it execs CMD unsupervised, as a job runs in
// production. Exit status: CMD's (a signal that killed CMD kills the supervisor too); 70 when the
// supervisor fails (as the shim), 127 when CMD cannot be run.
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "supervisor/calls.h"
#include "supervisor/filter.h"
#include "supervisor/supervisor.h"
#include "supervisor/target.h"

namespace killpoint::supervisor {
namespace {

pid_t g_child = -1;

// In the child, before exec: says why on stderr and exits `code` (127: CMD cannot be run, as a
// shell says; 70: the supervisor failed).
[[noreturn]] void ChildFail(const std::string& what, int code = 70) {
  std::string line = "killpoint supervisor: " + what + ": " + strerror(errno) + "\n";
  (void)!write(2, line.data(), line.size());
  _exit(code);
}

// One byte and room for one descriptor (SCM_RIGHTS): how the child hands the listener over.
struct FdMessage {
  char byte = 0;
  iovec iov{&byte, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  FdMessage() {
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
  }
  FdMessage(const FdMessage&) = delete;
  FdMessage& operator=(const FdMessage&) = delete;
};

// In the child, before exec: the filter, its listener handed to the parent, then CMD.
[[noreturn]] void RunChild(int sock, char** argv) {
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) ChildFail("no_new_privs");
  std::vector<sock_filter> filter = BuildFilter();
  sock_fprog prog{static_cast<unsigned short>(filter.size()), filter.data()};
  long listener =
      syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
              SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, &prog);
  if (listener < 0) ChildFail("seccomp user notification");
  // From here on the child's own notified calls wait for the parent: sendmsg and execve are not
  // notified, and both descriptors are close-on-exec, so nothing waits before the parent serves.
  FdMessage m;
  cmsghdr* c = CMSG_FIRSTHDR(&m.msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  int fd = static_cast<int>(listener);
  memcpy(CMSG_DATA(c), &fd, sizeof fd);
  if (sendmsg(sock, &m.msg, 0) != 1) ChildFail("cannot hand over the listener");
  execvp(argv[0], argv);
  ChildFail(std::string("cannot run ") + argv[0], 127);
}

int ReceiveListener(int sock) {
  FdMessage m;
  ssize_t n;
  while ((n = recvmsg(sock, &m.msg, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {
  }
  cmsghdr* c = n == 1 ? CMSG_FIRSTHDR(&m.msg) : nullptr;
  if (c == nullptr || c->cmsg_type != SCM_RIGHTS) return -1;
  int fd;
  memcpy(&fd, CMSG_DATA(c), sizeof fd);
  return fd;
}

// The child's end, passed on: its exit code, or its signal raised on the supervisor.
[[noreturn]] void ExitAs(int status) {
  if (WIFEXITED(status)) _exit(WEXITSTATUS(status));
  int sig = WIFSIGNALED(status) ? WTERMSIG(status) : SIGKILL;
  rlimit none{0, 0};
  setrlimit(RLIMIT_CORE, &none);
  signal(sig, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
  raise(sig);
  _exit(128 + sig);
}

// Linux 6.6's SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP, for older headers.
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

// The job and the supervisor take turns: a notified call waits for the answer, the supervisor
// for the next call. Woken synchronously, each wakes the other on its own CPU instead of
// sending it to another (Linux 6.6 and later; without it, about half of a call's cost on an
// idle machine was the wake-up of the other CPU: docs/supervisor.md, "Cost"). Older kernels
// refuse the flag (EINVAL), which changes nothing else.
void WakeSynchronously(int listener) {
  (void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
}

// Serves the job's notified calls until the child ends.
[[noreturn]] void Serve(const Config& config, int listener, pid_t child) {
  WakeSynchronously(listener);
  Channel channel(config);
  Memory memory;
  memory.journal = Journal(config.shadow);
  Tasks tasks;
  int pidfd = PidfdOpen(child);
  if (pidfd < 0) Fatal(std::string("pidfd_open: ") + strerror(errno));
  for (;;) {
    pollfd fds[2] = {{listener, POLLIN, 0}, {pidfd, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      Fatal(std::string("poll: ") + strerror(errno));
    }
    if (fds[0].revents & POLLIN) {
      seccomp_notif req{};
      if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) == 0) {
        HandleCall(config, channel, memory, Target(listener, req, tasks));
      } else if (errno != EINTR && errno != ENOENT) {
        Fatal(std::string("SECCOMP_IOCTL_NOTIF_RECV: ") + strerror(errno));
      }
      continue;  // calls first: the child's end is read once none is waiting
    }
    if (fds[1].revents & POLLIN) {
      int status = 0;
      while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
      }
      channel.Flush();
      ExitAs(status);
    }
  }
}

}  // namespace

void Fatal(const std::string& message) {
  std::string line = "killpoint supervisor: " + message + "\n";
  (void)!write(2, line.data(), line.size());
  if (g_child > 0) kill(g_child, SIGKILL);
  _exit(70);
}

}  // namespace killpoint::supervisor

int main(int argc, char** argv) {
  using namespace killpoint::supervisor;
  int first = 1;
  if (first < argc && std::string_view(argv[first]) == "--") ++first;
  if (first >= argc || std::string_view(argv[first]) == "--help") {
    std::cerr
        << "usage: killpoint-supervise [--] CMD ARGS...\n"
           "Runs CMD with its file-system calls handed to this supervisor (docs/supervisor.md).\n";
    return first >= argc ? 2 : 0;
  }
  Config config = ReadConfig();
  if (!config.active) {
    execvp(argv[first], argv + first);
    std::cerr << "killpoint supervisor: cannot run " << argv[first] << ": " << strerror(errno)
              << "\n";
    return 127;
  }
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) Fatal("socketpair");
  pid_t child = fork();
  if (child < 0) Fatal(std::string("fork: ") + strerror(errno));
  if (child == 0) {
    close(sv[0]);
    RunChild(sv[1], argv + first);
  }
  g_child = child;
  close(sv[1]);
  int listener = ReceiveListener(sv[0]);
  close(sv[0]);
  if (listener < 0) {  // the child said why on stderr
    int status = 0;
    waitpid(child, &status, 0);
    _exit(WIFEXITED(status) && WEXITSTATUS(status) != 0 ? WEXITSTATUS(status) : 70);
  }
  // The supervisor's own writes past the job's file size limit fail (EFBIG) instead of killing
  // it; the job gets its SIGXFSZ from calls.cc.
  signal(SIGXFSZ, SIG_IGN);
  signal(SIGPIPE, SIG_IGN);
  Serve(config, listener, child);
}
