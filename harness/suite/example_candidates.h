// Which finished trials may still become one of an invariant's examples, whatever order the
// trials finish in. An invariant's examples are its kMaxExamples smallest violating trial
// indexes (results/results.h: the first ones, in trial order). A trial that is not among the
// smallest known when it finishes never will be; one that is may be pushed out later by
// smaller ones finishing after it. A parallel run writes a trial's counterexample file only
// while it may be an example, and removes it once pushed out, so that the files are the same
// whatever the number of workers.
#pragma once

#include <cstddef>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string>

namespace killpoint {

class ExampleCandidates {
 public:
  explicit ExampleCandidates(size_t examples) : examples_(examples) {}

  struct Added {
    bool candidate = false;              // among the smallest known: write its file
    std::optional<int> pushed_out = {};  // a trial that no longer is: remove its file
  };

  // Trial `trial` violated `invariant`.
  Added Add(const std::string& invariant, int trial) {
    std::set<int>& smallest = smallest_[invariant];  // at most `examples_` of them
    Added out;
    if (smallest.size() >= examples_ && (examples_ == 0 || trial > *smallest.rbegin())) return out;
    out.candidate = smallest.insert(trial).second;
    if (smallest.size() > examples_) {
      out.pushed_out = *smallest.rbegin();
      smallest.erase(std::prev(smallest.end()));
    }
    return out;
  }

 private:
  size_t examples_;
  std::map<std::string, std::set<int>> smallest_;
};

}  // namespace killpoint
