#include "results/journal.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>
#include <unistd.h>

#include <fstream>

#include "history/history_log.h"
#include "util/atomic_file.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

Plan PlanOf(int trial) {
  Plan p;
  p.trial = trial;
  p.seed = 7;
  return p;
}

Event EventOf(int n) {
  Event e;
  e.seq = n;
  e.type = "spawn";
  return e;
}

std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

class JournalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kp-journal-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void Finish(int trial) {
    ASSERT_TRUE(AppendFinishedTrial(dir_, PlanOf(trial), {EventOf(0), EventOf(1)},
                                    {Verdict::Held("converges")}));
  }
  fs::path dir_;
};

TEST_F(JournalTest, ReadsEveryFinishedTrialInAnyOrder) {
  for (int t : {2, 0, 1}) Finish(t);
  auto r = RecoverJournals(dir_);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r.value().trials.size(), 3u);
  EXPECT_EQ(r.value().trials.at(2).plan.trial, 2);
  EXPECT_EQ(r.value().trials.at(0).verdicts.at(0).invariant, "converges");
  EXPECT_EQ(r.value().torn_lines_cut, 0);
}

TEST_F(JournalTest, MissingJournalsAreAnEmptyScenario) {
  auto r = RecoverJournals(dir_ / "never-started");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r.value().trials.empty());
}

TEST_F(JournalTest, CutsATornTailAndDropsTheHistoryOfAnUnfinishedTrial) {
  Finish(0);
  Finish(1);
  std::string whole_trials = Slurp(dir_ / "trials.jsonl");
  std::string whole_history = Slurp(dir_ / "history.jsonl");
  // Trial 2 died between its history append and its trials line, which is torn.
  ASSERT_TRUE(AppendTrialHistory(dir_ / "history.jsonl", 2, {EventOf(0)}));
  std::ofstream(dir_ / "trials.jsonl", std::ios::app) << "{\"trial\":2,\"pl";
  fs::create_directories(dir_ / "counterexamples");
  std::ofstream(dir_ / "counterexamples" / "trial-2-no_loss.json") << "{}";
  std::ofstream(dir_ / "counterexamples" / "trial-1-no_loss.json") << "{}";
  auto looked = ReadJournals(dir_);
  ASSERT_TRUE(looked);
  EXPECT_EQ(looked.value().torn_lines_cut, 1);
  EXPECT_NE(Slurp(dir_ / "trials.jsonl"), whole_trials) << "ReadJournals repairs nothing";
  auto r = RecoverJournals(dir_);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r.value().trials.size(), 2u);
  EXPECT_EQ(r.value().torn_lines_cut, 1);
  EXPECT_EQ(r.value().unfinished_history_lines, 1);
  EXPECT_EQ(r.value().stale_counterexamples, 1);
  EXPECT_EQ(Slurp(dir_ / "trials.jsonl"), whole_trials);
  EXPECT_EQ(Slurp(dir_ / "history.jsonl"), whole_history);
  EXPECT_FALSE(fs::exists(dir_ / "counterexamples" / "trial-2-no_loss.json"));
  EXPECT_TRUE(fs::exists(dir_ / "counterexamples" / "trial-1-no_loss.json"));
}

TEST_F(JournalTest, GarbageInTheMiddleIsAnErrorAndNothingChanges) {
  Finish(0);
  std::ofstream(dir_ / "trials.jsonl", std::ios::app) << "garbage\n";
  Finish(1);
  std::ofstream(dir_ / "history.jsonl", std::ios::app) << "{\"trial\":9,\"torn";
  std::string trials = Slurp(dir_ / "trials.jsonl"), history = Slurp(dir_ / "history.jsonl");
  auto r = RecoverJournals(dir_);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kBadInput);
  EXPECT_THAT(r.error().message,
              HasSubstr((dir_ / "trials.jsonl").string() + ":2: damaged trials journal"));
  EXPECT_THAT(r.error().message, HasSubstr("nothing was changed"));
  EXPECT_EQ(Slurp(dir_ / "trials.jsonl"), trials);
  EXPECT_EQ(Slurp(dir_ / "history.jsonl"), history);
}

TEST_F(JournalTest, ATrialTwiceIsAnError) {
  Finish(0);
  Finish(0);
  auto r = RecoverJournals(dir_);
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr(":2: damaged trials journal: trial 0 is there twice"));
}

TEST_F(JournalTest, DamagedHistoryInTheMiddleIsAnError) {
  Finish(0);
  std::ofstream(dir_ / "history.jsonl", std::ios::app) << "[1,2]\n";
  Finish(1);
  auto r = RecoverJournals(dir_);
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("history.jsonl:3: damaged history journal"));
}

// The law of the journal: cut its bytes anywhere (a crash mid-append), and recovery keeps
// exactly the trials whose trials line is whole, and the history of exactly those.
RC_GTEST_PROP(JournalLaw, ACutAnywhereKeepsExactlyTheWholeLines, ()) {
  fs::path dir = fs::temp_directory_path() / ("kp-journal-law-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  int n = *rc::gen::inRange(1, 6);
  for (int t = 0; t < n; ++t) RC_ASSERT(AppendFinishedTrial(dir, PlanOf(t), {EventOf(0)}, {}));
  std::string trials = Slurp(dir / "trials.jsonl"), history = Slurp(dir / "history.jsonl");
  size_t cut = *rc::gen::inRange<size_t>(0, trials.size() + 1);
  std::ofstream(dir / "trials.jsonl", std::ios::trunc) << trials.substr(0, cut);
  int whole = 0;
  for (size_t i = 0; i < cut; ++i) whole += trials[i] == '\n';
  auto r = RecoverJournals(dir);
  RC_ASSERT(r.has_value());
  RC_ASSERT(static_cast<int>(r.value().trials.size()) == whole);
  for (int t = 0; t < whole; ++t) RC_ASSERT(r.value().trials.count(t) == 1u);
  size_t history_lines = 0;
  for (char c : Slurp(dir / "history.jsonl")) history_lines += c == '\n';
  RC_ASSERT(static_cast<int>(history_lines) == whole);
  RC_ASSERT(r.value().torn_lines_cut == (cut > 0 && trials[cut - 1] != '\n' ? 1 : 0));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace killpoint
