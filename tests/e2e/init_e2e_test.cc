// A new user's first run, end to end: `killpoint init` on a payout job written for this test
// (tests/fixtures/init/), then `killpoint run` on the scenario it wrote. The scenario must catch
// the job's bug (a state file rewritten in place, without fsync) and pass its fixed form (the
// save recipe of docs/writing-a-job.md) unchanged.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "killpoint_cli.h"

namespace killpoint::testing {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;

class Init : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = FreshDir("init-e2e"); }
  void TearDown() override { fs::remove_all(dir_); }

  // killpoint ARGS..., from the job's folder, as a user would type it there.
  CliRun Killpoint(std::vector<std::string> args) {
    CliRun r;
    args.insert(args.begin(), KILLPOINT_BIN_DIR "/killpoint");
    auto p = Spawn({args, {}, dir_, dir_ / "cli.out", dir_ / "cli.err"});
    if (!p) {
      r.err = p.error().message;
      return r;
    }
    r.exit_code = p.value()->Wait(std::chrono::minutes(5)).ShellCode();
    r.out = Slurp(dir_ / "cli.out");
    r.err = Slurp(dir_ / "cli.err");
    return r;
  }

  void UseJob(const std::string& form) {
    fs::copy_file(fs::path(KILLPOINT_SOURCE_DIR) / "tests/fixtures/init" / form, dir_ / "payout.py",
                  fs::copy_options::overwrite_existing);
  }

  CliRun Run(const std::string& out) {
    CliRun r = Killpoint({"run", "scenario.json", "--trials", "4", "--seed", "1", "--out",
                          (dir_ / out).string(), "--quiet"});
    r.dir = dir_ / out;
    return r;
  }

  fs::path dir_;
};

TEST_F(Init, WritesAScenarioThatCatchesTheBugAndPassesTheFix) {
  UseJob("payout_buggy.py");
  CliRun init = Killpoint({"init", "--dates", "2026-11-01", "--", "/usr/bin/python3", "payout.py"});
  ASSERT_EQ(init.exit_code, 0) << init.out << init.err;
  EXPECT_THAT(init.out, HasSubstr("payout-state.json\tJSON object\tcreated, written"));
  EXPECT_THAT(init.out, HasSubstr("1 POST /publish, 0 GET /deliveries, 0 POST /alert"));
  EXPECT_THAT(init.out, HasSubstr("invariants.must_hold: state_readable: payout-state.json must "
                                  "parse as a JSON object"));
  EXPECT_THAT(init.out, HasSubstr("Next: killpoint run scenario.json"));
  nlohmann::json s = nlohmann::json::parse(Slurp(dir_ / "scenario.json"));
  EXPECT_EQ(s["job"]["command"],
            nlohmann::json::array({"/usr/bin/python3", "{scenario_dir}/payout.py"}));
  EXPECT_EQ(s["check"]["state_file"], "payout-state.json");
  EXPECT_THAT(s["failpoints"], Contains("downstream:/publish:*"));
  for (const char* i : {"no_double_publish", "state_readable", "converges"})
    EXPECT_THAT(s["invariants"]["must_hold"], Contains(i));

  CliRun again = Killpoint({"init", "--", "/usr/bin/python3", "payout.py"});
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_THAT(again.err, HasSubstr("scenario.json exists: --force to overwrite it"));

  CliRun buggy = Run("out-buggy");
  EXPECT_EQ(buggy.exit_code, 1) << buggy.out << buggy.err;
  bool state_broken = false;
  for (const auto& i : buggy.Results()["scenarios"][0]["invariants"])
    if (i["name"] == "state_readable") state_broken = i["violated"].get<int>() > 0;
  EXPECT_TRUE(state_broken) << buggy.Results().dump(1);

  UseJob("payout_fixed.py");
  CliRun fixed = Run("out-fixed");
  EXPECT_EQ(fixed.exit_code, 0) << fixed.out << fixed.err;
}

// A job that fails under init gets no scenario: exit 2 with its stderr.
TEST_F(Init, AJobThatFailsSaysSoWithItsStderr) {
  CliRun init = Killpoint({"init", "--", "/usr/bin/python3", "no_such_payout.py"});
  EXPECT_EQ(init.exit_code, 2);
  EXPECT_THAT(init.err, HasSubstr("the job failed under init: every attempt exited with code 2"));
  EXPECT_THAT(init.err, HasSubstr("no_such_payout.py': [Errno 2] No such file or directory"));
  EXPECT_FALSE(fs::exists(dir_ / "scenario.json"));
}

// --out into a folder that does not exist yet makes it, as `run --out` does; the job's path in
// the scenario still leads to it from there.
TEST_F(Init, MakesTheFolderOfItsOut) {
  UseJob("payout_fixed.py");
  CliRun init = Killpoint({"init", "--out", "ci/killpoint/payout.json", "--dates", "2026-11-01",
                           "--", "/usr/bin/python3", "payout.py"});
  ASSERT_EQ(init.exit_code, 0) << init.out << init.err;
  auto s = nlohmann::json::parse(Slurp(dir_ / "ci/killpoint/payout.json"));
  EXPECT_EQ(s["job"]["command"][1], (dir_ / "payout.py").string());
}

// Issue 33: a job that needs a setup step (a table a migration makes) fails under init alone;
// with --setup the step runs in the sandbox first, and the scenario carries it as job.setup,
// its script's path portable like the job's.
TEST_F(Init, RunsASetupStepAndWritesItAsJobSetup) {
  for (const char* f : {"ledger_setup.py", "ledger_job.py"}) {
    fs::copy_file(fs::path(KILLPOINT_SOURCE_DIR) / "tests/fixtures/init" / f, dir_ / f);
  }
  CliRun alone = Killpoint({"init", "--", "/usr/bin/python3", "ledger_job.py"});
  EXPECT_EQ(alone.exit_code, 2);
  EXPECT_THAT(alone.err, HasSubstr("no such table: entries"));

  CliRun init = Killpoint({"init", "--setup", "/usr/bin/python3 'ledger_setup.py'", "--dates",
                           "2026-11-01,2026-11-02", "--", "/usr/bin/python3", "ledger_job.py"});
  ASSERT_EQ(init.exit_code, 0) << init.out << init.err;
  EXPECT_THAT(init.out, HasSubstr("job.setup: run once in each trial's fresh sandbox"));
  auto s = nlohmann::json::parse(Slurp(dir_ / "scenario.json"));
  EXPECT_EQ(s["job"]["setup"],
            nlohmann::json::array({"/usr/bin/python3", "{scenario_dir}/ledger_setup.py"}));
  CliRun run = Run("out-ledger");
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;

  CliRun unclosed = Killpoint(
      {"init", "--force", "--setup", "python3 'x.py", "--", "/usr/bin/python3", "ledger_job.py"});
  EXPECT_EQ(unclosed.exit_code, 2);
  EXPECT_THAT(unclosed.err, HasSubstr("--setup: an unclosed ' quote"));
}

}  // namespace
}  // namespace killpoint::testing
