// Issue 33: a scenario's own invariant as a command (docs/scenarios.md, "Command checks"), end
// to end on Python jobs in a correct and a buggy form: a CSV export whose state calls a date
// exported before its CSV exists (a 0-byte CSV that every built-in invariant passes), and a
// git export that rewrites its branch's ref in place (an empty ref, which `git fsck` reports).
// Plus a SQL check over two databases (attach), and the command's mistakes: exit 2.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "killpoint_cli.h"

namespace killpoint::testing {
namespace {

using ::testing::HasSubstr;

void Write(const fs::path& file, const std::string& text) { std::ofstream(file) << text; }

CliRun RunCheck(const std::string& scenario, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"run", "tests/fixtures/command-checks/" + scenario + ".json",
                                   "--seed", "3"};
  args.insert(args.end(), extra.begin(), extra.end());
  return RunKillpoint("command-check-" + scenario, args);
}

TEST(CommandCheck, CatchesAZeroByteExportItsStateCallsExported) {
  CliRun bug = RunCheck("csv-export-buggy", {"--exhaustive"});
  EXPECT_EQ(bug.exit_code, 1) << bug.out << bug.err;
  nlohmann::json i =
      Invariant(bug.Results(), "command-checks/csv-export-buggy", "export_matches_state");
  EXPECT_EQ(i["status"], "VIOLATED");
  ASSERT_FALSE(i["examples"].empty());
  EXPECT_THAT(i["examples"][0]["explanation"].get<std::string>(),
              HasSubstr("a date the state calls exported has no complete CSV: the command "
                        "exited with code 1: exported dates without a complete CSV: 2026-11-0"));
  // converges holds: every attempt ended well, which is why no built-in invariant saw it.
  EXPECT_EQ(Invariant(bug.Results(), "command-checks/csv-export-buggy", "converges")["status"],
            "held");

  CliRun fixed = RunCheck("csv-export-correct", {"--exhaustive"});
  EXPECT_EQ(fixed.exit_code, 0) << fixed.out << fixed.err;
  EXPECT_EQ(Invariant(fixed.Results(), "command-checks/csv-export-correct",
                      "export_matches_state")["status"],
            "held");
}

TEST(CommandCheck, GitFsckCatchesARefRewrittenInPlace) {
  CliRun bug = RunCheck("git-export-buggy");
  EXPECT_EQ(bug.exit_code, 1) << bug.out << bug.err;
  nlohmann::json i =
      Invariant(bug.Results(), "command-checks/git-export-buggy", "repository_sound");
  EXPECT_EQ(i["status"], "VIOLATED");
  ASSERT_FALSE(i["examples"].empty());
  EXPECT_THAT(i["examples"][0]["explanation"].get<std::string>(),
              HasSubstr("git fsck finds the repository damaged: the command exited with code"));
  EXPECT_THAT(i["examples"][0]["explanation"].get<std::string>(),
              HasSubstr("refs/heads/main: invalid sha1 pointer"));

  // A kill anywhere in git's own work (the lock files, the index, the objects) leaves a sound
  // repository: 16 combinations spread over both dates.
  CliRun fixed = RunCheck("git-export-correct", {"--exhaustive", "--limit", "16"});
  EXPECT_EQ(fixed.exit_code, 0) << fixed.out << fixed.err;
  EXPECT_EQ(fixed.Results()["scenarios"][0]["trials"], 16);
}

// after_every_crash on a command check: it runs on a copy of the whole sandbox after each
// kill; the buggy CSV export is caught there too, named by its crash point.
TEST(CommandCheck, RunsOnEveryCrashStateWithAfterEveryCrash) {
  fs::path dir = FreshDir("command-check-crash-scenarios");
  nlohmann::json scenario = nlohmann::json::parse(Slurp(
      fs::path(KILLPOINT_SOURCE_DIR) / "tests/fixtures/command-checks/csv-export-buggy.json"));
  scenario["checks"]["export_matches_state"]["after_every_crash"] = true;
  for (const char* f : {"csv_export.py", "check_export.py"}) {
    fs::copy_file(fs::path(KILLPOINT_SOURCE_DIR) / "tests/fixtures/command-checks" / f, dir / f);
  }
  Write(dir / "crash.json", scenario.dump());
  CliRun r = RunKillpoint("command-check-crash",
                          {"run", (dir / "crash.json").string(), "--exhaustive", "--limit", "40"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  nlohmann::json i =
      Invariant(r.Results(), "command-checks/csv-export-buggy", "export_matches_state");
  ASSERT_FALSE(i["examples"].empty());
  EXPECT_THAT(i["examples"][0]["explanation"].get<std::string>(), HasSubstr("after the crash at"));
}

TEST(CommandCheck, AMissingProgramIsExit2NamingTheCheck) {
  fs::path dir = FreshDir("command-check-missing");
  std::string text = Slurp(fs::path(KILLPOINT_SOURCE_DIR) /
                           "tests/fixtures/command-checks/csv-export-correct.json");
  text.replace(text.find("/usr/bin/python3\", \"{scenario_dir}/check_export.py"), 16,
               "/no/such/checker");
  fs::copy_file(fs::path(KILLPOINT_SOURCE_DIR) / "tests/fixtures/command-checks/csv_export.py",
                dir / "csv_export.py");
  Write(dir / "missing.json", text);
  CliRun r = RunKillpoint("command-check-missing-run",
                          {"run", (dir / "missing.json").string(), "--trials", "1"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("checks.export_matches_state.command: job program "
                               "'/no/such/checker' is missing or not executable"));
}

}  // namespace
}  // namespace killpoint::testing
