// Parallel trials (suite.cc's ScenarioTrials): trials finish in any order, yet the fold runs in
// trial order and the counterexample files kept are exactly the sequential run's.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "suite/example_candidates.h"
#include "suite/ordered_fold.h"

namespace killpoint {
namespace {

TEST(OrderedFold, HoldsTrialsBackUntilTheEarlierOnesFinish) {
  OrderedFold<std::string> fold({0, 2, 4, 6});  // a shard's trials
  EXPECT_TRUE(fold.Finish(2, "b").empty());
  EXPECT_TRUE(fold.Finish(6, "d").empty());
  EXPECT_EQ(fold.Waiting(), 2u);
  auto first = fold.Finish(0, "a");
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0], (std::pair<int, std::string>{0, "a"}));
  EXPECT_EQ(first[1], (std::pair<int, std::string>{2, "b"}));
  auto rest = fold.Rest();  // trial 4 never finished (interrupted): 6 is folded after all
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(rest[0].first, 6);
}

TEST(ExampleCandidates, KeepsTheSmallestViolatingTrials) {
  ExampleCandidates c(2);
  EXPECT_TRUE(c.Add("x", 7).candidate);
  EXPECT_TRUE(c.Add("x", 9).candidate);
  auto late = c.Add("x", 12);  // two smaller ones known: never an example
  EXPECT_FALSE(late.candidate);
  EXPECT_FALSE(late.pushed_out);
  auto early = c.Add("x", 3);  // pushes 9 out
  EXPECT_TRUE(early.candidate);
  EXPECT_EQ(early.pushed_out, 9);
  EXPECT_TRUE(c.Add("y", 12).candidate);  // invariants are counted apart
}

// Any order of finishing: the fold sees the trials in trial order, the files left are the
// examples' files of the sequential run, and a finished example never lacks its file.
RC_GTEST_PROP(ParallelFold, AnyFinishingOrderGivesTheSequentialRunsExamplesAndFiles, ()) {
  const int trials = *rc::gen::inRange(1, 60);
  const std::vector<std::string> invariants = {"a", "b", "c"};
  std::map<int, std::vector<std::string>> violated;
  for (int t = 0; t < trials; ++t) {
    for (const auto& inv : invariants) {
      if (*rc::gen::inRange(0, 4) == 0) violated[t].push_back(inv);
    }
  }
  std::vector<int> order(trials);
  for (int t = 0; t < trials; ++t) order[t] = t;
  std::vector<int> finishing = order;
  for (int i = trials - 1; i > 0; --i)
    std::swap(finishing[i], finishing[*rc::gen::inRange(0, i + 1)]);

  // The sequential run: the first kMax violators of each invariant.
  const size_t kMax = 3;
  std::set<std::pair<std::string, int>> expected;
  std::map<std::string, size_t> seen;
  for (int t = 0; t < trials; ++t) {
    for (const auto& inv : violated[t]) {
      if (seen[inv]++ < kMax) expected.insert({inv, t});
    }
  }

  OrderedFold<int> fold(order);
  ExampleCandidates candidates(kMax);
  std::set<std::pair<std::string, int>> files;
  std::set<int> finished;
  std::vector<int> folded;
  for (int t : finishing) {
    for (const auto& inv : violated[t]) {
      auto added = candidates.Add(inv, t);
      if (added.candidate) files.insert({inv, t});
      if (added.pushed_out) files.erase({inv, *added.pushed_out});
    }
    finished.insert(t);
    for (const auto& [trial, item] : fold.Finish(t, t)) folded.push_back(item);
    for (const auto& e : expected) {
      if (finished.count(e.second)) RC_ASSERT(files.count(e));
    }
  }
  RC_ASSERT(folded == order);
  RC_ASSERT(files == expected);
}

}  // namespace
}  // namespace killpoint
