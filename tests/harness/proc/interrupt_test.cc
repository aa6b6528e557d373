// The interruption of a wait, and the parent-death signal, with real processes.
#include "proc/interrupt.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "proc/process.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

class InterruptTest : public ::testing::Test {
 protected:
  void SetUp() override {
    InstallInterruptHandlers();
    ResetInterruptForTests();
    dir_ = fs::temp_directory_path() / ("kp-interrupt-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    ResetInterruptForTests();
    fs::remove_all(dir_);
  }
  SpawnRequest Shell(const std::string& script) {
    return {{"/bin/sh", "-c", script}, {}, dir_, dir_ / "out", dir_ / "err"};
  }
  std::string Read(const std::string& name) {
    std::ifstream in(dir_ / name);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  bool Alive(int pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    std::getline(stat, line);
    size_t paren = line.rfind(')');
    return paren != std::string::npos && line.size() > paren + 2 && line[paren + 2] != 'Z';
  }
  template <class F>
  bool Eventually(F done) {
    for (int i = 0; i < 9000 && !done(); ++i) std::this_thread::sleep_for(20ms);
    return done();
  }
  fs::path dir_;
};

TEST_F(InterruptTest, ASignalIsRecordedAndMakesTheFdReadable) {
  EXPECT_EQ(InterruptSignal(), 0);
  ASSERT_GE(InterruptFd(), 0);
  ASSERT_EQ(::raise(SIGTERM), 0);  // the real handler: the test process lives on
  EXPECT_EQ(InterruptSignal(), SIGTERM);
  pollfd p{InterruptFd(), POLLIN, 0};
  EXPECT_EQ(::poll(&p, 1, 0), 1);
  EXPECT_STREQ(InterruptName(SIGTERM), "SIGTERM");
  EXPECT_STREQ(InterruptName(SIGINT), "SIGINT");
}

TEST_F(InterruptTest, AnInterruptEndsAWaitAtOnceAndKillsTheGroup) {
  auto p = Spawn(Shell("sleep 1000 & echo $! > child; wait"));
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_TRUE(Eventually([&] { return !Read("child").empty(); }));
  int child = std::stoi(Read("child"));
  std::thread signal([] { RequestInterrupt(SIGINT); });
  ExitStatus s = p.value()->Wait(std::chrono::hours(1));  // would be an hour without it
  signal.join();
  EXPECT_TRUE(s.interrupted);
  EXPECT_FALSE(s.timed_out);
  EXPECT_EQ(s.signal, SIGKILL);
  EXPECT_EQ(s.Describe(), "killed: the harness was interrupted");
  EXPECT_TRUE(Eventually([&] { return !Alive(child); })) << "the group was killed";
  // Every later wait returns at once too: the pipe stays readable.
  auto q = Spawn(Shell("exec sleep 1000"));
  ASSERT_TRUE(q);
  EXPECT_TRUE(q.value()->Wait(std::chrono::hours(1)).interrupted);
}

// A "harness" (a forked child of the test) spawns a job and dies of SIGKILL: the job dies too.
TEST_F(InterruptTest, TheJobDiesWithTheHarnessByItsParentDeathSignal) {
  pid_t harness = ::fork();
  ASSERT_GE(harness, 0);
  if (harness == 0) {
    auto p = Spawn(Shell("echo $$ > job; exec sleep 1000"));
    if (!p) ::_exit(1);
    while (Read("job").empty()) std::this_thread::sleep_for(10ms);
    ::kill(::getpid(), SIGKILL);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(harness, &status, 0), harness);
  ASSERT_TRUE(WIFSIGNALED(status));
  int job = std::stoi(Read("job"));
  EXPECT_TRUE(Eventually([&] { return !Alive(job); })) << "job " << job << " outlived its harness";
}

}  // namespace
}  // namespace killpoint
