// Another local user, for the tests of who may reach the harness (docs/hardening.md, "Who can
// reach the harness"): a forked child that becomes uid and gid 65534 (nobody) and talks to a
// loopback port with raw sockets.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

namespace killpoint::testing {

inline constexpr uid_t kOtherUser = 65534;

// Connects to 127.0.0.1:`port` as user 65534, sends `request` and returns the first `max`
// bytes of the answer (until the peer closes or a newline ends the first line when
// `first_line`); "<cannot change user>" when this process may not change user (not root: the
// caller skips), "<connect failed>" when refused.
inline std::string AsAnotherUser(int port, const std::string& request, bool first_line) {
  if (::geteuid() != 0) return "<cannot change user>";
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return "<pipe failed>";
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(pipe_fds[0]);
    std::string out;
    if (::setgid(kOtherUser) != 0 || ::setuid(kOtherUser) != 0) {
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

}  // namespace killpoint::testing
