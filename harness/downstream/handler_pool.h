// The threads that serve the downstream's requests (downstream/http_server.cc). A request's handler
// may block: a crash point's hook kills the job, kDelay sleeps, commit_no_answer holds it until
// ReleaseHeld. So handlers never run on the thread that reads and writes the sockets; each
// complete request is a task here.
//
// A thread starts only when a task finds every thread busy, up to `max`: none for a trial whose
// job never calls the downstream, one for a job that calls it one request at a time (starting
// threads a trial never needs was a fifth of the smallest trial's cost, docs/performance.md).
// Beyond `max` busy threads, tasks wait their turn. Thread-safe.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace killpoint {

class HandlerPool {
 public:
  explicit HandlerPool(size_t max) : max_(max) {}
  ~HandlerPool() { Shutdown(); }
  HandlerPool(const HandlerPool&) = delete;
  HandlerPool& operator=(const HandlerPool&) = delete;

  // Runs `task` on one of the pool's threads. After Shutdown the task is dropped (destroyed on
  // the caller's thread, never run).
  void Enqueue(std::function<void()> task);

  // Lets the running tasks end, drops the waiting ones and joins every thread. Idempotent.
  void Shutdown();

 private:
  void Work();

  const size_t max_;
  std::mutex mu_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> tasks_;  // guarded by mu_
  std::vector<std::thread> threads_;         // guarded by mu_
  size_t idle_ = 0;                          // threads waiting for a task; guarded by mu_
  bool stopping_ = false;                    // guarded by mu_
};

}  // namespace killpoint
