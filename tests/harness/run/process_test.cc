#include "run/process.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <thread>

namespace killpoint {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

class ProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kp-process-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  SpawnRequest Shell(const std::string& script) {
    return {{"/bin/sh", "-c", script}, {{"KP_TEST", "yes"}}, dir_, dir_ / "out", dir_ / "err"};
  }
  std::string Read(const std::string& name) {
    std::ifstream in(dir_ / name);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  fs::path dir_;
};

TEST_F(ProcessTest, CapturesOutputEnvironmentAndExitCode) {
  auto p = Spawn(Shell("echo $KP_TEST; pwd; echo oops >&2; exit 7"));
  ASSERT_TRUE(p) << p.error().message;
  ExitStatus s = p.value()->Wait(10s);
  EXPECT_TRUE(s.exited);
  EXPECT_EQ(s.code, 7);
  EXPECT_EQ(Read("out"), "yes\n" + dir_.string() + "\n");
  EXPECT_EQ(Read("err"), "oops\n");
}

TEST_F(ProcessTest, KillsAHungJobAndItsGroupAtTheTimeout) {
  // The grandchild writes its pid, then both sleep "forever".
  auto p = Spawn(Shell("sleep 1000 & echo $! > grandchild; wait"));
  ASSERT_TRUE(p) << p.error().message;
  // Long enough for the shell to start its grandchild even on a loaded machine.
  ExitStatus s = p.value()->Wait(3s);
  EXPECT_TRUE(s.timed_out);
  EXPECT_FALSE(s.exited);
  EXPECT_EQ(s.signal, SIGKILL);
  EXPECT_EQ(s.ShellCode(), 137);
  std::string pid_text = Read("grandchild");
  ASSERT_FALSE(pid_text.empty());
  int grandchild = std::stoi(pid_text);
  // The grandchild was killed with the group; it may linger only as a zombie of init. SIGKILL
  // is delivered asynchronously: on a loaded machine it may take a moment to die.
  std::string line;
  for (int i = 0; i < 100; ++i) {
    std::ifstream stat("/proc/" + std::to_string(grandchild) + "/stat");
    if (!std::getline(stat, line) || line.find(") Z") != std::string::npos) return;
    std::this_thread::sleep_for(50ms);
  }
  ADD_FAILURE() << "the grandchild still runs 5 s after the group's kill: " << line;
}

TEST_F(ProcessTest, KillGroupEndsTheJobWithSigkill) {
  auto p = Spawn(Shell("exec sleep 1000"));
  ASSERT_TRUE(p);
  p.value()->KillGroup();
  ExitStatus s = p.value()->Wait(10s);
  EXPECT_FALSE(s.timed_out);
  EXPECT_EQ(s.signal, SIGKILL);
}

TEST_F(ProcessTest, RejectsAMissingProgramClearly) {
  auto p = Spawn({{"/no/such/job"}, {}, dir_, dir_ / "out", dir_ / "err"});
  ASSERT_FALSE(p);
  EXPECT_THAT(p.error().message, ::testing::HasSubstr("'/no/such/job' is missing or not executable"));
}

TEST_F(ProcessTest, DoesNotLeakTheHarnessKillpointVariables) {
  ::setenv("KILLPOINT_CTL", "stale", 1);
  auto p = Spawn(Shell("echo \"[$KILLPOINT_CTL]\""));
  ::unsetenv("KILLPOINT_CTL");
  ASSERT_TRUE(p);
  p.value()->Wait(10s);
  EXPECT_EQ(Read("out"), "[]\n");
}

}  // namespace
}  // namespace killpoint
