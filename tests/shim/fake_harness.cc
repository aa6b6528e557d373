#include "fake_harness.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <sstream>
#include <stdexcept>

namespace killpoint::shim_testing {
namespace {

bool SendAll(int fd, const std::string& data) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::send(fd, data.data() + off, data.size() - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

Line Parse(const std::string& text, int connection) {
  Line line;
  line.connection = connection;
  std::istringstream in(text);
  in >> line.kind >> line.name >> line.pid;
  std::string field;
  if (line.kind == "OUTSIDE") {
    in >> line.path;
    return line;
  }
  if (in >> field) {
    line.excl = field == "excl";
    if (!line.excl) line.bytes = std::stoll(field);
  }
  bool more = static_cast<bool>(in >> field);
  if (more && field.rfind("at:", 0) == 0) {
    line.offset = std::stoll(field.substr(3));
    more = static_cast<bool>(in >> field);
  }
  if (more && field.rfind("unseen:", 0) == 0) line.unseen = field.substr(7);
  return line;
}

}  // namespace

Rule ContinueAll() {
  return [](const Line&) { return Reply::Continue(); };
}

Rule At(const std::string& name, Reply at_hit, Reply at_done) {
  return [=](const Line& line) {
    if (line.name != name) return Reply::Continue();
    return line.kind == "HIT" ? at_hit : at_done;
  };
}

FakeHarness::FakeHarness(Rule rule) : rule_(std::move(rule)) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
      ::listen(listen_fd_, 64) != 0 ||
      ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0 ||
      ::pipe2(wake_, O_CLOEXEC) != 0) {
    throw std::runtime_error("fake harness: cannot listen");
  }
  port_ = ntohs(addr.sin_port);
  accept_thread_ = std::thread([this] { AcceptLoop(); });
}

FakeHarness::~FakeHarness() {
  char byte = 0;
  (void)!::write(wake_[1], &byte, 1);
  accept_thread_.join();
  {
    std::lock_guard lock(mu_);
    for (int fd : conn_fds_) ::shutdown(fd, SHUT_RDWR);  // unblocks a Serve still reading
  }
  for (std::thread& t : conn_threads_) t.join();
  for (int fd : conn_fds_) ::close(fd);
  ::close(listen_fd_);
  ::close(wake_[0]);
  ::close(wake_[1]);
}

std::string FakeHarness::address() const { return "127.0.0.1:" + std::to_string(port_); }

void FakeHarness::WaitIdle() {
  std::unique_lock lock(mu_);
  served_.wait_for(lock, std::chrono::seconds(30), [this] {
    pollfd pending{listen_fd_, POLLIN, 0};  // connected, not accepted yet
    return open_ == 0 && ::poll(&pending, 1, 0) == 0;
  });
}

void FakeHarness::SetGroup(pid_t pgid) {
  std::lock_guard lock(mu_);
  group_ = pgid;
  group_set_.notify_all();
}

std::vector<Line> FakeHarness::lines() const {
  std::lock_guard lock(mu_);
  return lines_;
}

std::vector<std::string> FakeHarness::hits() const {
  std::vector<std::string> names;
  for (const Line& line : lines()) {
    if (line.kind == "HIT") names.push_back(line.name);
  }
  return names;
}

int FakeHarness::connections() const {
  std::lock_guard lock(mu_);
  return static_cast<int>(conn_fds_.size());
}

bool FakeHarness::killed() const {
  std::lock_guard lock(mu_);
  return killed_;
}

void FakeHarness::AcceptLoop() {
  for (;;) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0) return;
    // Counted open before accept4 takes it off the backlog: between the two, WaitIdle would see
    // neither a pending connection nor an open one and return before its lines are read.
    {
      std::lock_guard lock(mu_);
      ++open_;
    }
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      std::lock_guard lock(mu_);
      --open_;
      served_.notify_all();
      continue;
    }
    int connection;
    {
      std::lock_guard lock(mu_);
      conn_fds_.push_back(fd);
      connection = static_cast<int>(conn_fds_.size());
    }
    conn_threads_.emplace_back([this, fd, connection] {
      Serve(fd, connection);
      std::lock_guard lock(mu_);
      --open_;
      served_.notify_all();
    });
  }
}

void FakeHarness::KillGroup() {
  std::unique_lock lock(mu_);
  group_set_.wait_for(lock, std::chrono::seconds(30), [this] { return group_ != 0; });
  if (group_ != 0) ::kill(-group_, SIGKILL);
  killed_ = true;
}

void FakeHarness::Serve(int fd, int connection) {
  std::string buffer;
  char chunk[4096];
  for (;;) {
    size_t nl;
    while ((nl = buffer.find('\n')) != std::string::npos) {
      Line line = Parse(buffer.substr(0, nl), connection);
      buffer.erase(0, nl + 1);
      {
        std::lock_guard lock(mu_);
        lines_.push_back(line);
      }
      if (line.kind == "SEEN" || line.kind == "OUTSIDE" || line.kind == "REFUSED")
        continue;  // v1.2, v1.5, v1.6: one way, never answered
      Reply reply = rule_(line);
      if (reply.kill) {
        KillGroup();
      } else if (!SendAll(fd, reply.text + "\n")) {
        return;
      }
    }
    ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // EOF: the process exited or was killed
    buffer.append(chunk, static_cast<size_t>(n));
  }
}

}  // namespace killpoint::shim_testing
