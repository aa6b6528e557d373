// killpoint failpoint client: header-only, C++17 or later, POSIX.
//
// A job marks the places where a crash is interesting:
//
//   #include <killpoint/failpoint.h>
//   killpoint::failpoint("before_rename");
//
// Under the harness the environment holds KILLPOINT_CTL=HOST:PORT. At each failpoint the
// client sends "HIT <name> <pid>\n" on a TCP connection to it and blocks until the harness
// answers "CONTINUE\n". The harness may instead SIGKILL the job's process group before it
// answers: that is the crash at this point, and the call never returns. Any other answer,
// EOF or I/O error means the harness is broken or gone: the client prints
// "killpoint failpoint: <what went wrong>" to stderr and calls _exit(70).
// The protocol is specified in docs/failpoint-protocol.md.
//
// Without KILLPOINT_CTL (or with it empty) every failpoint is a no-op: one check of a cached
// pointer, no system call and no allocation after the first call. The environment is read
// once, at the first call of failpoint() or failpoint_enabled(); later changes are ignored.
//
// Thread-safety: failpoint() may be called from any thread. One connection per process is
// opened lazily at the first hit and reused; a mutex serializes hits, so at most one HIT is
// in flight per process. After fork() the child opens its own connection at its first hit
// (the inherited socket stays the parent's). Do not call failpoint() from a signal handler,
// nor in a child forked while another thread was inside failpoint().
//
// Names must match [A-Za-z0-9_.:/-]+; a bad name under the harness is a bug in the job and
// ends it with _exit(70) like a broken channel does.
#ifndef KILLPOINT_FAILPOINT_H_
#define KILLPOINT_FAILPOINT_H_

#include <netdb.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <utility>

namespace killpoint {
namespace detail {

// Exit status of a job whose failpoint channel broke (EX_SOFTWARE in sysexits.h).
inline constexpr int kFailpointExitCode = 70;
// An answer longer than this without a newline is a protocol error.
inline constexpr std::size_t kMaxAnswerBytes = 4096;

[[noreturn]] inline void FailpointFatal(const std::string& what) {
  std::string line = "killpoint failpoint: " + what + "\n";
  ssize_t ignored = ::write(STDERR_FILENO, line.data(), line.size());
  (void)ignored;
  ::_exit(kFailpointExitCode);
}

inline bool IsValidFailpointName(const char* name) {
  if (name == nullptr || *name == '\0') return false;
  for (const char* p = name; *p != '\0'; ++p) {
    char c = *p;
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              std::strchr("_.:/-", c) != nullptr;
    if (!ok) return false;
  }
  return true;
}

// Connects to "HOST:PORT" ("[V6]:PORT" also works). Returns the socket, or -1 and sets *error.
inline int ConnectToController(const std::string& address, std::string* error) {
  std::size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == address.size()) {
    *error = "KILLPOINT_CTL=" + address + " is not HOST:PORT";
    return -1;
  }
  std::string host = address.substr(0, colon);
  std::string port = address.substr(colon + 1);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  int rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &found);
  if (rc != 0) {
    *error = "cannot resolve KILLPOINT_CTL=" + address + ": " + ::gai_strerror(rc);
    return -1;
  }
  int fd = -1;
  int last_errno = 0;
  for (addrinfo* ai = found; ai != nullptr && fd < 0; ai = ai->ai_next) {
    fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      last_errno = errno;
      continue;
    }
    int r;
    do {
      r = ::connect(fd, ai->ai_addr, ai->ai_addrlen);
    } while (r != 0 && errno == EINTR);
    if (r != 0) {
      last_errno = errno;
      ::close(fd);
      fd = -1;
    }
  }
  ::freeaddrinfo(found);
  if (fd < 0) {
    *error = "cannot connect to KILLPOINT_CTL=" + address + ": " + std::strerror(last_errno);
  }
  return fd;
}

// Sends all of data; MSG_NOSIGNAL turns a closed peer into EPIPE instead of SIGPIPE.
inline bool SendAll(int fd, const std::string& data) {
  std::size_t sent = 0;
  while (sent < data.size()) {
    ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

// One process-wide connection to the controller.
class FailpointClient {
 public:
  explicit FailpointClient(std::string address) : address_(std::move(address)) {}
  FailpointClient(const FailpointClient&) = delete;
  FailpointClient& operator=(const FailpointClient&) = delete;

  // Returns once the harness answered CONTINUE; otherwise never returns.
  void Hit(const char* name) {
    if (!IsValidFailpointName(name)) {
      FailpointFatal(std::string("invalid failpoint name \"") + (name ? name : "") +
                     "\" (allowed: [A-Za-z0-9_.:/-]+)");
    }
    std::lock_guard<std::mutex> lock(mu_);
    EnsureConnected();
    std::string pid = std::to_string(::getpid());
    if (!SendAll(fd_, std::string("HIT ") + name + " " + pid + "\n")) {
      FailpointFatal(std::string("cannot send HIT ") + name + ": " + std::strerror(errno));
    }
    CheckAnswer(name, ReadAnswerLine(name));
  }

 private:
  // Requires mu_. A child of fork() inherits the parent's socket: it must not talk on it.
  void EnsureConnected() {
    pid_t self = ::getpid();
    if (fd_ >= 0 && owner_ == self) return;
    if (fd_ >= 0) ::close(fd_);  // Inherited: closing our copy leaves the parent's open.
    std::string error;
    fd_ = ConnectToController(address_, &error);
    if (fd_ < 0) FailpointFatal(error);
    owner_ = self;
    buffered_.clear();
  }

  // Requires mu_. Returns the answer line without its '\n'.
  std::string ReadAnswerLine(const char* name) {
    std::size_t newline;
    while ((newline = buffered_.find('\n')) == std::string::npos) {
      if (buffered_.size() > kMaxAnswerBytes) {
        FailpointFatal(std::string("answer to HIT ") + name + " is too long");
      }
      char chunk[256];
      ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        FailpointFatal(std::string("cannot read the answer to HIT ") + name + ": " +
                       std::strerror(errno));
      }
      if (n == 0) FailpointFatal(std::string("the harness closed the channel at ") + name);
      buffered_.append(chunk, static_cast<std::size_t>(n));
    }
    std::string line = buffered_.substr(0, newline);
    buffered_.erase(0, newline + 1);
    return line;
  }

  static void CheckAnswer(const char* name, const std::string& line) {
    if (line == "CONTINUE") return;
    if (line.rfind("ERROR", 0) == 0) {
      std::string message = line.size() > 6 ? line.substr(6) : std::string("(no message)");
      FailpointFatal(std::string("the harness answered an error at ") + name + ": " + message);
    }
    FailpointFatal(std::string("unexpected answer at ") + name + ": \"" + line + "\"");
  }

  const std::string address_;
  std::mutex mu_;
  int fd_ = -1;           // Guarded by mu_. -1 until the first hit.
  pid_t owner_ = 0;       // Guarded by mu_. The process that opened fd_.
  std::string buffered_;  // Guarded by mu_. Bytes received after the last answer line.
};

// The process-wide client, or nullptr when not under the harness. Created at the first call
// and never destroyed, so failpoints stay usable during static destruction.
inline FailpointClient* GetFailpointClient() {
  static FailpointClient* const client = []() -> FailpointClient* {
    const char* ctl = std::getenv("KILLPOINT_CTL");
    if (ctl == nullptr || *ctl == '\0') return nullptr;
    return new FailpointClient(ctl);
  }();
  return client;
}

}  // namespace detail

// True when KILLPOINT_CTL was set (and not empty) at the first call.
inline bool failpoint_enabled() { return detail::GetFailpointClient() != nullptr; }

// Announces the named point to the harness and waits for it to let the job go on.
inline void failpoint(const char* name) {
  if (detail::FailpointClient* client = detail::GetFailpointClient()) client->Hit(name);
}

}  // namespace killpoint

#endif  // KILLPOINT_FAILPOINT_H_
