#include "service/server_thread.h"

namespace killpoint {

ServerThread::ServerThread() : thread_([this] { Loop(); }) {}

ServerThread::~ServerThread() {
  {
    std::lock_guard lock(mu_);
    quit_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void ServerThread::Run(const std::function<void()>& work) {
  std::unique_lock lock(mu_);
  work_ = &work;
  done_ = false;
  cv_.notify_all();
  cv_.wait(lock, [&] { return done_; });
  work_ = nullptr;
}

void ServerThread::Loop() {
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait(lock, [&] { return quit_ || (work_ != nullptr && !done_); });
    if (quit_) return;
    const std::function<void()>* work = work_;
    lock.unlock();
    (*work)();
    lock.lock();
    done_ = true;
    cv_.notify_all();
  }
}

}  // namespace killpoint
