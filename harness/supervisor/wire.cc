// The supervisor's end of the failpoint protocol (docs/failpoint-protocol.md): one TCP connection
// to KILLPOINT_CTL for every process of the job, since every call reaches the harness through the
// one loop. Lines carry the pid of the process that made the call. Like the shim, one-way SEEN
// lines are queued and leave in front of the next HIT, when 64 KiB are queued, and at the end.
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "supervisor/supervisor.h"

namespace killpoint::supervisor {
namespace {

constexpr size_t kOutMax = 65536;
constexpr size_t kLineMax = 4096;

}  // namespace

Channel::~Channel() {
  if (fd_ >= 0) close(fd_);
}

void Channel::Connect(const std::string& at) {
  if (fd_ >= 0) return;
  size_t colon = config_.ctl.rfind(':');
  if (colon == std::string::npos || colon == 0)
    Fatal("at " + at + ": KILLPOINT_CTL=" + config_.ctl + " is not HOST:PORT");
  std::string host = config_.ctl.substr(0, colon), port = config_.ctl.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (getaddrinfo(host.c_str(), port.c_str(), &hints, &res) != 0 || res == nullptr)
    Fatal("at " + at + ": cannot resolve KILLPOINT_CTL=" + config_.ctl);
  int fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  if (fd >= 0) (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  int rc = fd < 0 ? -1 : connect(fd, res->ai_addr, res->ai_addrlen);
  int err = errno;
  freeaddrinfo(res);
  if (rc != 0) {
    if (fd >= 0) close(fd);
    Fatal("at " + at + ": cannot connect to KILLPOINT_CTL=" + config_.ctl + ": " + strerror(err));
  }
  fd_ = fd;
}

void Channel::Send(const std::string& at) {
  if (out_.empty()) return;
  Connect(at);
  for (size_t off = 0; off < out_.size();) {
    ssize_t n = send(fd_, out_.data() + off, out_.size() - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) Fatal("at " + at + ": cannot send to KILLPOINT_CTL: " + strerror(errno));
    off += static_cast<size_t>(n);
  }
  out_.clear();
}

std::string Channel::ReadLine(const std::string& at) {
  for (;;) {
    size_t nl = in_.find('\n');
    if (nl != std::string::npos) {
      std::string line = in_.substr(0, nl);
      in_.erase(0, nl + 1);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      return line;
    }
    if (in_.size() >= kLineMax) Fatal("at " + at + ": answer longer than 4096 bytes");
    char buf[kLineMax];
    ssize_t n = recv(fd_, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) Fatal("at " + at + ": EOF on KILLPOINT_CTL");
    if (n < 0) Fatal("at " + at + ": cannot read from KILLPOINT_CTL: " + strerror(errno));
    in_.append(buf, static_cast<size_t>(n));
  }
}

bool Channel::Waits(const Point& p) const {
  if (!config_.one_way || p.excl || p.wait || p.name == config_.armed) return true;
  std::string_view op = std::string_view(p.name).substr(0, p.name.find(':'));
  return std::find(config_.wait_ops.begin(), config_.wait_ops.end(), op) != config_.wait_ops.end();
}

std::string Channel::Exchange(const char* kind, const Point& p, uint64_t bytes) {
  std::string line = std::string(kind) + " " + p.name + " " + std::to_string(p.pid);
  if (p.is_write) line += " " + std::to_string(std::min<uint64_t>(bytes, 999999999999999999ULL));
  if (p.excl && kind[0] == 'H') line += " excl";
  if (p.is_write && p.offset >= 0 && kind[0] == 'H') line += " at:" + std::to_string(p.offset);
  out_ += line + "\n";
  Send(p.name);
  return ReadLine(p.name);
}

Reply Channel::Hit(const Point& p) {
  if (!Waits(p)) {
    std::string line = "SEEN " + p.name + " " + std::to_string(p.pid);
    if (p.is_write)
      line += " " + std::to_string(std::min<uint64_t>(p.bytes, 999999999999999999ULL));
    if (p.excl) line += " excl";
    if (out_.size() + line.size() + 1 > kOutMax) Send(p.name);
    out_ += line + "\n";
    return {};
  }
  std::string answer = Exchange("HIT", p, p.bytes);
  if (answer == "CONTINUE") return {};
  if (answer == "AFTER") return {Answer::kAfter, 0};
  if (answer.rfind("PARTIAL ", 0) == 0 && p.is_write && answer.size() > 8 &&
      std::all_of(answer.begin() + 8, answer.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
      answer.size() <= 8 + 18) {
    return {Answer::kPartial, std::stoull(answer.substr(8))};
  }
  if (answer.rfind("ERROR", 0) == 0) Fatal("at " + p.name + ": " + answer);
  Fatal("at " + p.name + ": unexpected answer '" + answer + "'");
}

void Channel::Done(const Point& p, uint64_t done_bytes) {
  std::string answer = Exchange("DONE", p, done_bytes);
  if (answer == "CONTINUE") return;
  if (answer.rfind("ERROR", 0) == 0) Fatal("at " + p.name + " (DONE): " + answer);
  Fatal("at " + p.name + " (DONE): unexpected answer '" + answer + "'");
}

void Channel::Outside(std::string_view op, int pid, std::string_view path) {
  std::string key = std::string(op) + '\0' + std::string(path);
  if (std::find(outside_sent_.begin(), outside_sent_.end(), key) != outside_sent_.end()) return;
  if (outside_sent_.size() < 4096) outside_sent_.push_back(key);
  static const char kHex[] = "0123456789ABCDEF";
  std::string line = "OUTSIDE " + std::string(op) + " " + std::to_string(pid) + " ";
  for (unsigned char c : path) {
    if (c <= ' ' || c > '~' || c == '%') {
      line += '%';
      line += kHex[c >> 4];
      line += kHex[c & 15];
    } else {
      line += static_cast<char>(c);
    }
  }
  if (line.size() >= kLineMax) return;
  out_ += line + "\n";
  Send("OUTSIDE " + std::string(op));
}

void Channel::Refused(std::string_view call, int pid) {
  out_ += "REFUSED " + std::string(call) + " " + std::to_string(pid) + "\n";
  Send("REFUSED " + std::string(call));
}

void Channel::Flush() {
  if (!out_.empty()) Send("exit");
}

}  // namespace killpoint::supervisor
