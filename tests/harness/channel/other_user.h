// Another local user, for the tests of who may reach the harness (docs/hardening.md, "Who can
// reach the harness"): a forked child that becomes uid and gid 65534 (nobody), or another uid,
// and talks to a loopback port with raw sockets or runs a program.
#pragma once

#include <arpa/inet.h>
#include <grp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace killpoint::testing {

inline constexpr uid_t kOtherUser = 65534;
// A user that is neither the harness nor `nobody`, the servers' own user when the harness runs as
// root (proc/server_process.h's ServerUserFor): no account of the machine has it.
inline constexpr uid_t kStranger = 54321;

// Connects to 127.0.0.1:`port` as user 65534, sends `request` and returns the first `max`
// bytes of the answer (until the peer closes or a newline ends the first line when
// `first_line`); "<cannot change user>" when this process may not change user (not root: the
// caller skips), "<connect failed>" when refused.
inline std::string AsAnotherUser(int port, const std::string& request, bool first_line,
                                 uid_t uid = kOtherUser) {
  if (::geteuid() != 0) return "<cannot change user>";
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return "<pipe failed>";
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(pipe_fds[0]);
    std::string out;
    if (::setgid(uid) != 0 || ::setuid(uid) != 0) {
      out = "<setuid failed>";
    } else {
      int fd = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_port = htons(static_cast<uint16_t>(port));
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        out = "<connect failed>";
      } else {
        (void)!::send(fd, request.data(), request.size(), 0);
        char c;
        while (out.size() < 4096 && ::recv(fd, &c, 1, 0) == 1) {
          if (first_line && c == '\n') break;
          out += c;
        }
      }
    }
    (void)!::write(pipe_fds[1], out.data(), out.size());
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  std::string out;
  char buffer[512];
  for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) out.append(buffer, n);
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return out;
}

struct OtherUserRun {
  int exit_code = -1;  // -1: it did not run (not root: the caller skips), or a signal ended it
  std::string output;  // its stdout and stderr
};

// Runs `argv` (argv[0] a full path) as `uid` with nothing of this process's environment but a
// PATH and a HOME no one has: no password variable, no ~/.pgpass or ~/.my.cnf.
inline OtherUserRun RunAsAnotherUser(const std::vector<std::string>& argv, uid_t uid = kStranger) {
  if (::geteuid() != 0) return {-1, "<cannot change user>"};
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  char path[] = "PATH=/usr/bin:/bin";
  char home[] = "HOME=/nonexistent";
  char* env[] = {path, home, nullptr};
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return {-1, "<pipe failed>"};
  pid_t pid = ::fork();
  if (pid == 0) {  // only async-signal-safe calls until exec
    ::dup2(pipe_fds[1], 1);
    ::dup2(pipe_fds[1], 2);
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    if (::setgroups(0, nullptr) == 0 && ::setgid(uid) == 0 && ::setuid(uid) == 0) {
      ::execve(args[0], args.data(), env);
    }
    ::_exit(126);
  }
  ::close(pipe_fds[1]);
  OtherUserRun out;
  char buffer[512];
  for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;)
    out.output.append(buffer, n);
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

}  // namespace killpoint::testing
