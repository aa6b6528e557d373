// Trials of a parallel run finish in any order; their results are folded in trial order, so
// that a run's results (counts, and above all which trials are an invariant's first examples)
// are the same whatever the number of workers (docs/performance.md, "Parallel trials").
#pragma once

#include <cstddef>
#include <map>
#include <utility>
#include <vector>

namespace killpoint {

template <typename T>
class OrderedFold {
 public:
  // `order`: every trial index the run folds, in the order to fold them (increasing).
  explicit OrderedFold(std::vector<int> order) : order_(std::move(order)) {}

  // Stores a finished trial; returns the trials that can be folded now, in order: this one
  // and those after it that were waiting for it, or nothing while an earlier one is running.
  std::vector<std::pair<int, T>> Finish(int trial, T item) {
    waiting_.emplace(trial, std::move(item));
    std::vector<std::pair<int, T>> out;
    while (next_ < order_.size()) {
      auto it = waiting_.find(order_[next_]);
      if (it == waiting_.end()) break;
      out.emplace_back(it->first, std::move(it->second));
      waiting_.erase(it);
      ++next_;
    }
    return out;
  }

  // What finished but waits behind a trial that never will (an interrupted run), in order.
  std::vector<std::pair<int, T>> Rest() {
    std::vector<std::pair<int, T>> out;
    for (auto& [trial, item] : waiting_) out.emplace_back(trial, std::move(item));
    waiting_.clear();
    next_ = order_.size();
    return out;
  }

  // Trials finished and not folded yet: at most the workers' number plus what one slow trial
  // holds back.
  size_t Waiting() const { return waiting_.size(); }

 private:
  std::vector<int> order_;
  size_t next_ = 0;
  std::map<int, T> waiting_;
};

}  // namespace killpoint
