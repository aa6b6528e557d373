#include "proc/process.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/statvfs.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "proc/process_tag.h"

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

// A job that deleted its sandbox: the next attempt must fail as such, never run in the
// harness's own folder (Boost's start_dir ignored chdir's failure, issue 34).
TEST_F(ProcessTest, AWorkingFolderThatCannotBeEnteredFailsTheJob) {
  SpawnRequest r = Shell("pwd; touch written-here");
  r.cwd = dir_ / "gone";
  auto p = Spawn(r);
  ASSERT_TRUE(p) << p.error().message;
  ExitStatus s = p.value()->Wait(10s);
  EXPECT_TRUE(s.exited);
  EXPECT_EQ(s.code, 127);
  EXPECT_EQ(Read("out"), "");
  EXPECT_EQ(Read("err"), "killpoint: cannot enter the job's working folder " +
                             (dir_ / "gone").string() + ": No such file or directory\n");
  EXPECT_FALSE(fs::exists(fs::current_path() / "written-here"));
}

// Issue 34: RLIMIT_FSIZE caps each file, not their total, so a job writing file after file
// filled the RAM file system its sandbox was on. With a watched folder, the job is killed once
// less than the minimum is free. The minimum here is what is free now less 64 MiB: the job
// writes 64 MiB files until it is killed, well before it could fill anything.
TEST_F(ProcessTest, AJobFillingItsWatchedFileSystemIsKilled) {
  fs::path shm = "/dev/shm";
  struct statvfs before;
  if (::statvfs(shm.c_str(), &before) != 0 || ::access(shm.c_str(), W_OK) != 0)
    GTEST_SKIP() << "no /dev/shm to write to";
  int64_t free_now = static_cast<int64_t>(before.f_bavail) * static_cast<int64_t>(before.f_frsize);
  if (free_now < (1LL << 30)) GTEST_SKIP() << "under 1 GiB free in /dev/shm";
  fs::path box = shm / ("kp-process-full-" + std::to_string(::getpid()));
  fs::create_directories(box);
  SpawnRequest r = Shell("i=0; while [ $i -lt 16 ]; do head -c 67108864 /dev/zero > " +
                         box.string() + "/f$i || exit 9; i=$((i+1)); sleep 0.05; done; exit 0");
  r.watch_free = box;
  r.min_free_bytes = free_now - (64LL << 20);
  auto p = Spawn(r);
  ASSERT_TRUE(p) << p.error().message;
  ExitStatus s = p.value()->Wait(60s);
  int files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(box)) ++files;
  fs::remove_all(box);
  EXPECT_TRUE(s.sandbox_full);
  EXPECT_FALSE(s.exited) << "the job wrote all 16 files: " << s.Describe();
  EXPECT_LT(files, 16);
  EXPECT_EQ(s.Describe(), "killed: its sandbox filled the RAM file system");
  EXPECT_THAT(Read("err"), ::testing::HasSubstr("fell below"));
}

TEST_F(ProcessTest, RejectsAMissingProgramClearly) {
  auto p = Spawn({{"/no/such/job"}, {}, dir_, dir_ / "out", dir_ / "err"});
  ASSERT_FALSE(p);
  EXPECT_THAT(p.error().message,
              ::testing::HasSubstr("'/no/such/job' is missing or not executable"));
}

TEST_F(ProcessTest, DoesNotLeakTheHarnessKillpointVariables) {
  ::setenv("KILLPOINT_CTL", "stale", 1);
  auto p = Spawn(Shell("echo \"[$KILLPOINT_CTL]\""));
  ::unsetenv("KILLPOINT_CTL");
  ASSERT_TRUE(p);
  p.value()->Wait(10s);
  EXPECT_EQ(Read("out"), "[]\n");
}

TEST_F(ProcessTest, AFileBeyondTheSizeLimitKillsTheJobWithSigxfsz) {
  SpawnRequest r = Shell("exec head -c 100000 /dev/zero > big");
  r.max_file_bytes = 4096;
  auto p = Spawn(r);
  ASSERT_TRUE(p) << p.error().message;
  ExitStatus s = p.value()->Wait(60s);
  EXPECT_FALSE(s.exited);
  EXPECT_EQ(s.signal, SIGXFSZ);
  EXPECT_EQ(fs::file_size(dir_ / "big"), 4096u);
  EXPECT_THAT(s.Describe(), ::testing::HasSubstr("SIGXFSZ"));
  EXPECT_THAT(
      Read("err"),
      ::testing::HasSubstr(
          "[killpoint: killed by SIGXFSZ: a file reached the sandbox's size limit of 4096 bytes"));
}

TEST_F(ProcessTest, TheDefaultSizeLimitIsSetAndNoCoreFiles) {
  auto p = Spawn(Shell("ulimit -f; ulimit -c"));
  ASSERT_TRUE(p);
  p.value()->Wait(60s);
  // ulimit -f counts 512-byte blocks.
  EXPECT_EQ(Read("out"), std::to_string(kDefaultMaxFileBytes / 512) + "\n0\n");
}

TEST_F(ProcessTest, CapturedOutputIsCappedAndTheCutIsMarked) {
  SpawnRequest r = Shell("head -c 100000 /dev/zero | tr '\\0' o; echo tail >&2");
  r.max_output_bytes = 1000;
  auto p = Spawn(r);
  ASSERT_TRUE(p);
  ExitStatus s = p.value()->Wait(60s);
  EXPECT_EQ(s.code, 0);
  EXPECT_EQ(Read("out"),
            std::string(1000, 'o') +
                "\n[killpoint: stdout truncated: kept the first 1000 bytes, dropped 99000]\n");
  EXPECT_EQ(Read("err"), "tail\n");
}

TEST_F(ProcessTest, AJobBlockedOnAFullPipeIsNotAHang) {
  // Far more than a pipe holds: the waiter must drain while it waits.
  auto p = Spawn(Shell("head -c 5000000 /dev/zero; exit 4"));
  ASSERT_TRUE(p);
  ExitStatus s = p.value()->Wait(600s);
  EXPECT_FALSE(s.timed_out);
  EXPECT_EQ(s.code, 4);
}

// True while `pid` runs with this test's marker in its environment.
bool Ours(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/environ");
  std::string env((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return env.find("KP_TEST=yes") != std::string::npos;
}

TEST_F(ProcessTest, KillsWhatLeftTheProcessGroupAfterTheJobExits) {
  // setsid and a double fork: neither is in the job's group any more.
  auto p = Spawn(Shell(
      "setsid sleep 1000 & echo $! > setsid_pid; "
      "(setsid sh -c 'echo $$ > daemon_pid.tmp; mv daemon_pid.tmp daemon_pid; exec sleep 1000' &); "
      "until [ -s daemon_pid ]; do sleep 0.01; done"));
  ASSERT_TRUE(p);
  ExitStatus s = p.value()->Wait(600s);
  EXPECT_EQ(s.code, 0);
  EXPECT_EQ(s.stray_killed, 2);
  for (const char* f : {"setsid_pid", "daemon_pid"}) {
    std::string text = Read(f);
    ASSERT_FALSE(text.empty()) << f;
    EXPECT_FALSE(Ours(std::stoi(text))) << f << " " << text << " survived";
  }
}

// True while `pid` runs `sleep 1017` (a process with no environment of ours to look for).
bool Sleeps1017(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline");
  std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return cmdline == std::string(
                        "sleep\0"
                        "1017\0",
                        11);
}

// `env -i` clears the tag and setsid leaves the group and session: only the subreaper finds it.
TEST_F(ProcessTest, KillsAnOrphanThatClearedItsEnvironmentThroughTheSubreaper) {
  ASSERT_TRUE(BecomeSubreaper());
  auto p = Spawn(Shell(
      "env -i setsid sleep 1017 & echo $! > escaped_pid; "
      "until [ \"$(tr '\\0' ' ' < /proc/$!/cmdline)\" = 'sleep 1017 ' ]; do sleep 0.01; done"));
  ASSERT_TRUE(p);
  ExitStatus s = p.value()->Wait(600s);
  EXPECT_EQ(s.code, 0);
  EXPECT_EQ(s.stray_killed, 1);
  std::string text = Read("escaped_pid");
  ASSERT_FALSE(text.empty());
  EXPECT_FALSE(Sleeps1017(std::stoi(text))) << text << " survived";
}

TEST_F(ProcessTest, EachJobHasItsOwnTag) {
  auto a = Spawn(Shell("echo $KILLPOINT_PROCESS_TAG"));
  ASSERT_TRUE(a);
  a.value()->Wait(60s);
  std::string first = Read("out");
  auto b = Spawn(Shell("echo $KILLPOINT_PROCESS_TAG"));
  ASSERT_TRUE(b);
  b.value()->Wait(60s);
  EXPECT_EQ(first, a.value()->tag() + "\n");
  EXPECT_EQ(Read("out"), b.value()->tag() + "\n");
  EXPECT_NE(a.value()->tag(), b.value()->tag());
}

}  // namespace
}  // namespace killpoint
