#include "loopback.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace killpoint::testing {
namespace {

// poll() on fds for reading; returns the count of ready fds (0 on timeout), retrying EINTR.
int PollReadable(pollfd* fds, int count, std::chrono::milliseconds timeout) {
  for (int i = 0; i < count; ++i) fds[i].events = POLLIN;
  int rc;
  do {
    rc = ::poll(fds, count, static_cast<int>(timeout.count()));
  } while (rc < 0 && errno == EINTR);
  return rc;
}

void Fail(const char* what) {
  throw std::runtime_error(std::string(what) + ": " + std::strerror(errno));
}

}  // namespace

Connection::Connection(Connection&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), buffered_(std::move(other.buffered_)) {}

Connection::~Connection() { Close(); }

void Connection::Close() {
  if (fd_ >= 0) ::close(std::exchange(fd_, -1));
}

bool Connection::WaitReadable(std::chrono::milliseconds timeout) const {
  pollfd fd{fd_, 0, 0};
  return PollReadable(&fd, 1, timeout) > 0;
}

std::optional<std::string> Connection::ReadLine(std::chrono::milliseconds timeout) {
  std::size_t newline;
  while ((newline = buffered_.find('\n')) == std::string::npos) {
    if (!WaitReadable(timeout)) return std::nullopt;
    char chunk[256];
    ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;
    buffered_.append(chunk, static_cast<std::size_t>(n));
  }
  std::string line = buffered_.substr(0, newline);
  buffered_.erase(0, newline + 1);
  return line;
}

bool Connection::WaitForEof(std::chrono::milliseconds timeout) {
  if (!buffered_.empty() || !WaitReadable(timeout)) return false;
  char byte;
  return ::recv(fd_, &byte, 1, 0) == 0;
}

bool Connection::Send(const std::string& data) {
  std::size_t sent = 0;
  while (sent < data.size()) {
    ssize_t n = ::send(fd_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

LoopbackListener::LoopbackListener() {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) Fail("socket");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) Fail("bind");
  if (::listen(fd_, 16) != 0) Fail("listen");
  socklen_t len = sizeof addr;
  if (::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) Fail("getsockname");
  port_ = ntohs(addr.sin_port);
  if (::pipe2(wake_pipe_, O_CLOEXEC) != 0) Fail("pipe2");
}

LoopbackListener::~LoopbackListener() {
  for (int fd : {fd_, wake_pipe_[0], wake_pipe_[1]}) {
    if (fd >= 0) ::close(fd);
  }
}

std::optional<Connection> LoopbackListener::Accept(std::chrono::milliseconds timeout) {
  pollfd fds[2] = {{fd_, 0, 0}, {wake_pipe_[0], 0, 0}};
  if (PollReadable(fds, 2, timeout) <= 0 || (fds[1].revents & POLLIN) != 0) return std::nullopt;
  int fd;
  do {
    fd = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return std::nullopt;
  return Connection(fd);
}

void LoopbackListener::Wake() {
  char byte = 1;
  ssize_t ignored = ::write(wake_pipe_[1], &byte, 1);
  (void)ignored;
}

}  // namespace killpoint::testing
