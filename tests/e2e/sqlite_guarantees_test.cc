// SQLite's documented guarantees, measured at every crash point of a commit under each
// persistence model (docs/sqlite-guarantees.md).
#include <gtest/gtest.h>

#include "killpoint_cli.h"

namespace killpoint::testing {
namespace {

class SqliteGuarantees : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    fs::path root = fs::exists("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
    sandboxes_ = root / ("kp-sqlite-e2e-" + std::to_string(::getpid()));
    fs::create_directories(sandboxes_);
    run_ = new CliRun(RunKillpoint("sqlite", {"run", "scenarios/sqlite", "--exhaustive",
                                              "--sandbox-root", sandboxes_.string(), "--quiet"}));
  }
  static void TearDownTestSuite() {
    delete run_;
    fs::remove_all(sandboxes_);
  }

  // Trials of `setting` under `model` that broke `invariant`, and all its trials under `model`.
  static std::pair<int, int> Count(const std::string& setting, const std::string& invariant,
                                   const std::string& model) {
    for (const auto& s : run_->Results()["scenarios"]) {
      if (s["name"] != "sqlite/" + setting) continue;
      for (const auto& i : s["invariants"]) {
        if (i["name"] == invariant) {
          return {i["violated_by_model"].value(model, 0), s["trials_by_model"].value(model, 0)};
        }
      }
    }
    ADD_FAILURE() << setting << " has no " << invariant;
    return {-1, -1};
  }
  static int Corrupt(const std::string& setting, const std::string& model) {
    return Count(setting, "state_readable", model).first;
  }
  static int Lost(const std::string& setting, const std::string& model) {
    return Count(setting, "commits_survive", model).first;
  }

  static inline const std::vector<std::string> kSettings = {
      "delete-off", "delete-normal", "delete-full", "delete-extra",
      "wal-off",    "wal-normal",    "wal-full",    "wal-extra"};
  static fs::path sandboxes_;
  static CliRun* run_;
};
fs::path SqliteGuarantees::sandboxes_;
CliRun* SqliteGuarantees::run_ = nullptr;

TEST_F(SqliteGuarantees, EveryPromiseHolds) { EXPECT_EQ(run_->exit_code, 0) << run_->err; }

TEST_F(SqliteGuarantees, AnApplicationCrashLosesNothingInAnyMode) {
  for (const auto& s : kSettings) {
    EXPECT_GT(Count(s, "commits_survive", "process").second, 10) << s;
    EXPECT_EQ(Corrupt(s, "process"), 0) << s;
    EXPECT_EQ(Lost(s, "process"), 0) << s;
  }
}

TEST_F(SqliteGuarantees, PowerLossWithSynchronousOffLosesCommits) {
  EXPECT_GT(Lost("delete-off", "power"), 0);
  EXPECT_GT(Lost("wal-off", "power"), 0);
  EXPECT_GT(Corrupt("delete-off", "torn") + Corrupt("wal-off", "torn"), 0);
}

TEST_F(SqliteGuarantees, WalNormalRollsBackButNeverCorrupts) {
  EXPECT_GT(Lost("wal-normal", "power"), 0);
  EXPECT_EQ(Corrupt("wal-normal", "power"), 0);
  EXPECT_EQ(Corrupt("wal-normal", "torn"), 0);
}

TEST_F(SqliteGuarantees, WalFullKeepsEveryCommit) {
  for (const char* model : {"power", "torn"}) {
    EXPECT_EQ(Lost("wal-full", model), 0) << model;
    EXPECT_EQ(Corrupt("wal-full", model), 0) << model;
  }
}

TEST_F(SqliteGuarantees, DeleteFullMayLoseTheLastCommitToTheJournalUnlink) {
  EXPECT_GT(Lost("delete-full", "power"), 0);
  EXPECT_EQ(Corrupt("delete-full", "power"), 0);
}

TEST_F(SqliteGuarantees, DeleteExtraSyncsTheUnlinkAndKeepsIt) {
  for (const char* model : {"power", "torn"}) {
    EXPECT_EQ(Lost("delete-extra", model), 0) << model;
    EXPECT_EQ(Corrupt("delete-extra", model), 0) << model;
  }
}

}  // namespace
}  // namespace killpoint::testing
