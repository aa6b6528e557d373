#include "downstream/handler_pool.h"

#include <utility>

namespace killpoint {

void HandlerPool::Enqueue(std::function<void()> task) {
  std::unique_lock lock(mu_);
  if (stopping_) {
    lock.unlock();
    return;  // `task` is destroyed here, outside mu_
  }
  tasks_.push_back(std::move(task));
  if (idle_ == 0 && threads_.size() < max_) {
    threads_.emplace_back([this] { Work(); });
  } else {
    ready_.notify_one();
  }
}

void HandlerPool::Shutdown() {
  std::deque<std::function<void()>> dropped;
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    dropped.swap(tasks_);
    threads.swap(threads_);
  }
  ready_.notify_all();
  for (auto& t : threads) t.join();
  // `dropped` goes last, once no thread of the pool is left: a task may own what a running one
  // still used.
}

void HandlerPool::Work() {
  std::unique_lock lock(mu_);
  while (true) {
    ++idle_;
    ready_.wait(lock, [this] { return !tasks_.empty() || stopping_; });
    --idle_;
    if (stopping_) return;
    auto task = std::move(tasks_.front());
    tasks_.pop_front();
    lock.unlock();
    task();
    task = nullptr;  // what it owned is let go before the next wait
    lock.lock();
  }
}

}  // namespace killpoint
