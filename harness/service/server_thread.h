// A thread that starts servers again after a server kill (docs/services.md, "Server faults"). A
// server dies with the thread that started it (PR_SET_PDEATHSIG, proc/server_process.h): a
// restart carried out on an attempt's own thread would die with the attempt. This one lives as
// long as the ServiceSet that owns it, which stops its servers before it goes.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace killpoint {

class ServerThread {
 public:
  ServerThread();
  ~ServerThread();  // joins the thread; call Run from no other thread meanwhile
  ServerThread(const ServerThread&) = delete;
  ServerThread& operator=(const ServerThread&) = delete;

  // Runs `work` on the thread and returns once it is done. One caller at a time.
  void Run(const std::function<void()>& work);

 private:
  void Loop();

  std::mutex mu_;
  std::condition_variable cv_;
  const std::function<void()>* work_ = nullptr;  // guarded by mu_: pending or running
  bool done_ = false;                            // guarded by mu_
  bool quit_ = false;                            // guarded by mu_
  std::thread thread_;
};

}  // namespace killpoint
