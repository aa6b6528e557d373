// A TCP listener on 127.0.0.1 with an ephemeral port, and its accepted connections, for
// tests that play the harness side of the failpoint protocol. Every wait is bounded by a
// timeout, so a broken job fails the test instead of hanging it.
#ifndef KILLPOINT_TESTS_JOBS_LOOPBACK_H_
#define KILLPOINT_TESTS_JOBS_LOOPBACK_H_

#include <chrono>
#include <optional>
#include <string>

namespace killpoint::testing {

inline constexpr std::chrono::milliseconds kIoTimeout{10000};

class Connection {
 public:
  explicit Connection(int fd) : fd_(fd) {}
  Connection(Connection&& other) noexcept;
  Connection& operator=(Connection&&) = delete;
  Connection(const Connection&) = delete;
  ~Connection();

  // One line without its '\n'; nullopt on EOF, error or timeout.
  std::optional<std::string> ReadLine(std::chrono::milliseconds timeout = kIoTimeout);
  // True when the peer closed the connection within timeout without sending anything more.
  bool WaitForEof(std::chrono::milliseconds timeout = kIoTimeout);
  bool Send(const std::string& data);
  void Close();

 private:
  // Waits until fd_ is readable; false on timeout.
  bool WaitReadable(std::chrono::milliseconds timeout) const;

  int fd_;  // -1 once closed or moved from.
  std::string buffered_;
};

class LoopbackListener {
 public:
  LoopbackListener();  // Throws std::runtime_error if it cannot listen.
  LoopbackListener(const LoopbackListener&) = delete;
  LoopbackListener& operator=(const LoopbackListener&) = delete;
  ~LoopbackListener();

  int port() const { return port_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

  // The next connection; nullopt on timeout or after Wake(). A negative timeout waits forever.
  std::optional<Connection> Accept(std::chrono::milliseconds timeout = kIoTimeout);
  // Makes a blocked or later Accept() return nullopt. Thread-safe.
  void Wake();

 private:
  int fd_ = -1;
  int wake_pipe_[2] = {-1, -1};
  int port_ = 0;
};

}  // namespace killpoint::testing

#endif  // KILLPOINT_TESTS_JOBS_LOOPBACK_H_
