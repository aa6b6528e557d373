#include "suite/job_commit.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

namespace killpoint {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::MatchesRegex;

fs::path FreshDir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("kp-commit-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

bool Sh(const std::string& command) {
  return std::system((command + " >/dev/null 2>&1").c_str()) == 0;
}

Scenario JobAt(const fs::path& scenario_file, std::vector<std::string> command) {
  Scenario s;
  s.file = scenario_file;
  s.job.command = std::move(command);
  return s;
}

TEST(JobFolders, ProgramThenScriptArgumentsThenTheScenariosFolder) {
  fs::path dir = FreshDir("folders");
  fs::create_directories(dir / "jobs");
  fs::create_directories(dir / "scenarios");
  std::ofstream(dir / "jobs" / "job.py") << "print()\n";
  Scenario s = JobAt(dir / "scenarios" / "s.json",
                     {"/usr/bin/python3", "{scenario_dir}/../jobs/job.py", "--flag"});
  EXPECT_THAT(
      JobFolders(s, "/bin"),
      ElementsAre(fs::path("/usr/bin"), dir / "scenarios" / ".." / "jobs", dir / "scenarios"));
  Scenario built = JobAt(dir / "s.json", {"{bindir}/kp-publish", "--order", "x"});
  EXPECT_THAT(JobFolders(built, "/opt/kp/bin"), ElementsAre(fs::path("/opt/kp/bin"), dir));
  Scenario on_path = JobAt(dir / "s.json", {"sh", "-c", "true"});  // found on PATH: no folder
  EXPECT_THAT(JobFolders(on_path, "/bin"), ElementsAre(dir));
}

TEST(JobCommit, TheCheckoutsHeadDirtyWhenTrackedFilesChangedAndNothingOutsideGit) {
  if (!Sh("git --version")) GTEST_SKIP() << "git is not installed";
  fs::path dir = FreshDir("repo");
  fs::path repo = dir / "repo";
  fs::create_directories(repo / "sub");
  std::ofstream(repo / "job.sh") << "true\n";
  ASSERT_TRUE(Sh("cd " + repo.string() +
                 " && git init -q && git add job.sh && git -c user.name=t -c user.email=t@t "
                 "commit -qm job"));
  Scenario s = JobAt(repo / "s.json", {"/bin/sh", "{scenario_dir}/job.sh"});
  std::string clean = JobCommit(s, "/nonexistent");
  EXPECT_THAT(clean, MatchesRegex("[0-9a-f]{40}"));
  std::ofstream(repo / "job.sh", std::ios::app) << "false\n";
  Scenario again =
      JobAt(repo / "sub" / ".." / "s.json",
            {"/bin/sh", "{scenario_dir}/job.sh"});  // another folder spelling: not cached
  EXPECT_EQ(JobCommit(again, "/nonexistent"), clean + "-dirty");
  fs::path outside = dir / "outside";
  fs::create_directories(outside);
  EXPECT_EQ(JobCommit(JobAt(outside / "s.json", {"/nonexistent/job"}), "/nonexistent"), "");
}

}  // namespace
}  // namespace killpoint
