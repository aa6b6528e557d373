// Plays the harness side of the failpoint protocol: answers CONTINUE to every HIT, except at
// the point named kill_at, where it SIGKILLs the hitting process's group before answering,
// the way the harness crashes a job at a point.
#ifndef KILLPOINT_TESTS_JOBS_FAKE_CONTROLLER_H_
#define KILLPOINT_TESTS_JOBS_FAKE_CONTROLLER_H_

#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "loopback.h"

namespace killpoint::testing {

class FakeController {
 public:
  // kill_at empty: never kill.
  explicit FakeController(std::string kill_at = "");
  FakeController(const FakeController&) = delete;
  FakeController& operator=(const FakeController&) = delete;
  ~FakeController();

  // The value for KILLPOINT_CTL.
  std::string address() const { return listener_.address(); }
  // The names of the points hit so far, in arrival order. Thread-safe.
  std::vector<std::string> hits() const;

 private:
  void AcceptLoop();
  void Serve(Connection connection);
  // Returns the answer to one request line ("" after a kill: no answer).
  std::string Answer(const std::string& line);

  const std::string kill_at_;
  LoopbackListener listener_;
  mutable std::mutex mu_;
  std::vector<std::string> hits_;         // Guarded by mu_.
  std::vector<std::thread> connections_;  // Only touched by the accept thread.
  std::thread accept_thread_;
};

}  // namespace killpoint::testing

#endif  // KILLPOINT_TESTS_JOBS_FAKE_CONTROLLER_H_
