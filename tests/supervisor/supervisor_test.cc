// The seccomp supervisor (harness/supervisor, docs/supervisor.md) around real programs: what
// the LD_PRELOAD shim cannot see (a static binary, raw system calls, stdio, a child with a
// cleaned environment, O_DSYNC, RWF_DSYNC, msync, io_uring) against the shim's fake harness,
// which records every line and answers CONTINUE, AFTER, PARTIAL n, or kills the job's group.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "../shim/fake_harness.h"
#include "../shim/job.h"

namespace killpoint::shim_testing {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::Not;

const std::vector<std::string> kSaveHits = {"open:state.json.tmp",
                                            "write:state.json.tmp",
                                            "fsync:state.json.tmp",
                                            "close:state.json.tmp",
                                            "rename:state.json.tmp:state.json",
                                            "fsync:.",
                                            "close:."};

std::string Supervisor() { return std::string(KILLPOINT_BIN_DIR) + "/killpoint-supervise"; }

class SupervisorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::access(Supervisor().c_str(), X_OK), 0) << Supervisor();
    root_ = MakeTempRoot("kp-supervisor-test");
    ASSERT_NE(root_, "");
    sandbox_ = root_ + "/sandbox";
    ASSERT_EQ(::mkdir(sandbox_.c_str(), 0755), 0);
  }
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(root_, ignored);
  }

  std::string Sandbox(const std::string& name) const { return sandbox_ + "/" + name; }

  // Runs argv under the supervisor in the sandbox; KILLPOINT_CTL points at `harness` when given.
  JobResult Run(std::vector<std::string> argv, FakeHarness* harness) {
    argv.insert(argv.begin(), {Supervisor(), "--"});
    JobSpec spec = SandboxJob(std::move(argv), sandbox_, root_, extra_env_, harness);
    spec.preload = false;
    return RunJob(spec, harness);
  }
  JobResult Probe(const std::string& mode, FakeHarness* harness) {
    return Run({KP_SUPERVISOR_PROBE, mode}, harness);
  }

  std::string root_, sandbox_;
  std::map<std::string, std::string> extra_env_;
};

TEST_F(SupervisorTest, AStaticBinarysSaveHasTheShimsPointsInOrder) {
  FakeHarness harness;
  JobResult r = Probe("save", &harness);
  ASSERT_EQ(r.exit_code, 0) << r;
  harness.WaitIdle();
  EXPECT_THAT(harness.hits(), ElementsAreArray(kSaveHits));
  EXPECT_EQ(ReadFile(Sandbox("state.json")), "{\"n\": 1}\n");
}

TEST_F(SupervisorTest, RawSystemCallsAreSeenAsTheyHappen) {
  FakeHarness harness;
  JobResult r = Probe("raw", &harness);
  ASSERT_EQ(r.exit_code, 0) << r;
  harness.WaitIdle();
  EXPECT_THAT(harness.hits(),
              ElementsAre("open:raw.txt", "write:raw.txt", "fdatasync:raw.txt", "close:raw.txt"));
  for (const Line& line : harness.lines()) {
    EXPECT_EQ(line.unseen, "") << line.name;
    if (line.name == "write:raw.txt") {
      EXPECT_EQ(line.bytes, 4);
    }
  }
}

TEST_F(SupervisorTest, StdioWritesAreSeen) {
  FakeHarness harness;
  ASSERT_EQ(Probe("stdio", &harness).exit_code, 0);
  harness.WaitIdle();
  EXPECT_THAT(harness.hits(), ElementsAre("open:stdio.txt", "write:stdio.txt", "fsync:stdio.txt",
                                          "close:stdio.txt"));
}

// A write through an O_DSYNC descriptor or with RWF_DSYNC is durable when it returns: the
// harness hears the write and then the sync it made, before the job goes on.
TEST_F(SupervisorTest, ASynchronousWriteIsAWriteAndThenItsSync) {
  FakeHarness harness;
  ASSERT_EQ(Probe("dsync", &harness).exit_code, 0);
  harness.WaitIdle();
  EXPECT_THAT(harness.hits(), ElementsAre("open:dsync.txt", "write:dsync.txt",
                                          "fdatasync:dsync.txt", "close:dsync.txt", "open:rwf.txt",
                                          "write:rwf.txt", "fdatasync:rwf.txt", "close:rwf.txt"));
}

TEST_F(SupervisorTest, MsyncOfASharedMappingIsASyncOfItsFile) {
  FakeHarness harness;
  ASSERT_EQ(Probe("map", &harness).exit_code, 0);
  harness.WaitIdle();
  EXPECT_THAT(harness.hits(), ElementsAre("open:map.bin", "truncate:map.bin", "fdatasync:map.bin",
                                          "close:map.bin"));
  EXPECT_EQ(ReadFile(Sandbox("map.bin")).substr(0, 6), "mapped");
}

// An O_TMPFILE has no name until linkat gives it one: no point before, then the name appears
// (open:) with the content its earlier fsync made durable (fsync:).
TEST_F(SupervisorTest, AnUnnamedFileCountsOnceLinkatNamesIt) {
  FakeHarness harness;
  JobResult r = Probe("tmpfile", &harness);
  ASSERT_EQ(r.exit_code, 0) << r;
  harness.WaitIdle();
  EXPECT_THAT(harness.hits(),
              ElementsAre("open:t.new", "fsync:t.new", "rename:t.new:t", "fsync:.", "close:."));
  EXPECT_EQ(ReadFile(Sandbox("t")), "tmp\n");
}

// sync and a syncfs of the sandbox's file system make the whole sandbox durable: one point
// each; a syncfs of another file system is none.
TEST_F(SupervisorTest, SyncAndSyncfsOfTheSandboxAreOneSyncPointEach) {
  FakeHarness harness;
  ASSERT_EQ(Probe("syncs", &harness).exit_code, 0);
  harness.WaitIdle();
  EXPECT_THAT(harness.hits(),
              ElementsAre("open:s.txt", "write:s.txt", "sync:.", "sync:.", "close:s.txt"));
}

// A folder of the sandbox that is a symlink out of it: the files written there land outside,
// so they are reported as such and are no crash points (no persistence model claims them).
TEST_F(SupervisorTest, WritesThroughASymlinkOutOfTheSandboxAreOutside) {
  std::string out = root_ + "/elsewhere";
  ASSERT_EQ(::mkdir(out.c_str(), 0755), 0);
  ASSERT_EQ(::symlink(out.c_str(), Sandbox("data").c_str()), 0);
  FakeHarness harness;
  JobResult r =
      Run({"/bin/sh", "-c", "echo x > data/state.json; mv data/state.json data/s2"}, &harness);
  ASSERT_EQ(r.exit_code, 0) << r;
  harness.WaitIdle();
  EXPECT_THAT(harness.hits(), ElementsAre());
  std::set<std::string> outside;
  for (const Line& line : harness.lines()) {
    if (line.kind == "OUTSIDE") outside.insert(line.name + " " + line.path);
  }
  std::string real = std::filesystem::canonical(out).string();
  EXPECT_THAT(outside, Contains("open " + real + "/state.json"));
  EXPECT_THAT(outside, Contains("rename " + real + "/s2"));
}

// A folder the supervisor makes for the job gets the job's umask, not the supervisor's.
TEST_F(SupervisorTest, AFolderIsMadeWithTheJobsUmask) {
  FakeHarness harness;
  JobResult r = Run({"/bin/sh", "-c", "umask 0; mkdir open; umask 077; mkdir closed"}, &harness);
  ASSERT_EQ(r.exit_code, 0) << r;
  harness.WaitIdle();
  EXPECT_THAT(harness.hits(), ElementsAre("mkdir:open", "mkdir:closed"));
  struct stat st {};
  ASSERT_EQ(::stat(Sandbox("open").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0777u);
  ASSERT_EQ(::stat(Sandbox("closed").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

// /proc says "gone (deleted)" once the file is unlinked; the points keep the name it had.
TEST_F(SupervisorTest, AnUnlinkedFileKeepsItsName) {
  FakeHarness harness;
  ASSERT_EQ(Probe("unlinked", &harness).exit_code, 0);
  harness.WaitIdle();
  EXPECT_THAT(harness.hits(), ElementsAre("open:gone", "unlink:gone", "write:gone", "close:gone"));
}

// env -i drops LD_PRELOAD, not a seccomp filter: the grandchild's calls are the same points.
TEST_F(SupervisorTest, AChildWithACleanedEnvironmentIsStillSeen) {
  FakeHarness harness;
  JobResult r =
      Run({"/usr/bin/env", "-i", "KILLPOINT_WORKDIR=" + sandbox_, KP_SUPERVISOR_PROBE, "save"},
          &harness);
  ASSERT_EQ(r.exit_code, 0) << r;
  harness.WaitIdle();
  EXPECT_THAT(harness.hits(), ElementsAreArray(kSaveHits));
}

// Processes of one job reach the harness in the order the kernel ran their calls, each with
// its pid: the shell's mktemp, its redirection, mv and sync are four processes.
TEST_F(SupervisorTest, TheShellRecipeIsOneOrderAcrossProcesses) {
  FakeHarness harness;
  JobResult r =
      Run({"/bin/bash", "-c",
           "t=$(mktemp -p .); printf 'x\\n' > \"$t\"; sync \"$t\"; mv \"$t\" state; sync ."},
          &harness);
  ASSERT_EQ(r.exit_code, 0) << r;
  harness.WaitIdle();
  std::vector<std::string> ops;
  std::set<int> pids;
  for (const Line& line : harness.lines()) {
    if (line.kind != "HIT") continue;
    ops.push_back(line.name.substr(0, line.name.find(':')));
    pids.insert(line.pid);
  }
  // mktemp's exclusive open and close; bash's open, write and close; sync's fsync; mv's rename;
  // sync's directory fsync.
  EXPECT_THAT(ops, Contains("rename"));
  auto at = [&](const std::string& op) {
    return std::find(ops.begin(), ops.end(), op) - ops.begin();
  };
  EXPECT_LT(at("write"), at("fsync"));
  EXPECT_LT(at("fsync"), at("rename"));
  EXPECT_GE(pids.size(), 4u) << "mktemp, bash, sync, mv";
  EXPECT_EQ(ReadFile(Sandbox("state")), "x\n");
}

TEST_F(SupervisorTest, AKillAtARenameLeavesItUndone) {
  FakeHarness harness(At("rename:state.json.tmp:state.json", Reply::Kill()));
  JobResult r = Probe("save", &harness);
  EXPECT_EQ(r.term_signal, SIGKILL) << r;
  EXPECT_TRUE(harness.killed());
  EXPECT_TRUE(Exists(Sandbox("state.json.tmp")));
  EXPECT_FALSE(Exists(Sandbox("state.json")));
}

TEST_F(SupervisorTest, AKillAfterARenameFindsItDone) {
  FakeHarness harness(At("rename:state.json.tmp:state.json", Reply::Send("AFTER")));
  JobResult r = Probe("save", &harness);
  EXPECT_EQ(r.term_signal, SIGKILL) << r;
  EXPECT_FALSE(Exists(Sandbox("state.json.tmp")));
  EXPECT_EQ(ReadFile(Sandbox("state.json")), "{\"n\": 1}\n");
}

TEST_F(SupervisorTest, APartialWriteLeavesExactlyItsPrefix) {
  FakeHarness harness(At("write:state.json.tmp", Reply::Send("PARTIAL 3")));
  JobResult r = Probe("save", &harness);
  EXPECT_EQ(r.term_signal, SIGKILL) << r;
  EXPECT_EQ(ReadFile(Sandbox("state.json.tmp")), "{\"n");
  std::vector<Line> lines = harness.lines();
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back().kind, "DONE");
  EXPECT_EQ(lines.back().bytes, 3);
}

// A write's HIT says where in its file it lands (protocol v1.7), as the shim's does: a pwrite's
// offset, the shared position for write and writev (read through the supervisor's duplicate of
// the descriptor), the file's size for an O_APPEND write (a pwrite too).
TEST_F(SupervisorTest, AWritesHitSaysWhereItLands) {
  FakeHarness harness;
  JobResult r = Run({KP_SHIM_PROBE, "offsets"}, &harness);
  ASSERT_EQ(r.exit_code, 0) << r;
  std::vector<std::string> writes;
  for (const Line& l : harness.lines()) {
    if (l.kind == "HIT" && l.name.rfind("write:", 0) == 0)
      writes.push_back(l.name + " " + std::to_string(l.bytes) + " at " + std::to_string(l.offset));
  }
  EXPECT_THAT(writes, ElementsAre("write:off.bin 10000 at 100", "write:off.bin 10 at 5000",
                                  "write:off.bin 7 at 5010", "write:app.bin 7 at 0",
                                  "write:app.bin 5 at 7"));
  EXPECT_EQ(ReadFile(Sandbox("app.bin")).size(), 12u);
}

// AFTER at an open that creates: the supervisor creates the file with the job's umask and hands
// the descriptor over; the job then writes through it.
TEST_F(SupervisorTest, AnOpenLetThroughAfterIsTheJobsOwnDescriptor) {
  FakeHarness harness(At("open:state.json.tmp", Reply::Send("AFTER"), Reply::Continue()));
  JobResult r = Probe("save", &harness);
  ASSERT_EQ(r.exit_code, 0) << r;
  harness.WaitIdle();
  EXPECT_THAT(harness.hits(), ElementsAreArray(kSaveHits));
  EXPECT_EQ(ReadFile(Sandbox("state.json")), "{\"n\": 1}\n");
  struct stat st {};
  ASSERT_EQ(::stat(Sandbox("state.json").c_str(), &st), 0);
  mode_t umask = ::umask(0);  // the job's: the test's own, inherited
  ::umask(umask);
  EXPECT_EQ(st.st_mode & 0777, 0666 & ~umask);
}

TEST_F(SupervisorTest, IoUringIsRefusedAndReported) {
  FakeHarness harness;
  JobResult r = Probe("uring", &harness);
  ASSERT_EQ(r.exit_code, 0) << r;
  harness.WaitIdle();
  EXPECT_THAT(r.out, HasSubstr("io_uring_setup: Function not implemented"));
  EXPECT_THAT(r.err, HasSubstr("io_uring_setup refused"));
  bool reported = false;
  for (const Line& line : harness.lines())
    reported = reported || (line.kind == "REFUSED" && line.name == "io_uring_setup");
  EXPECT_TRUE(reported);
}

// With KILLPOINT_* as the harness sets them for a one-way attempt, only the armed point waits.
TEST_F(SupervisorTest, OnlyTheArmedPointWaits) {
  extra_env_["KILLPOINT_ARMED"] = "rename:state.json.tmp:state.json";
  extra_env_["KILLPOINT_WAIT_OPS"] = "";
  FakeHarness harness;
  ASSERT_EQ(Probe("save", &harness).exit_code, 0);
  harness.WaitIdle();
  EXPECT_THAT(harness.hits(), ElementsAre("rename:state.json.tmp:state.json"));
  int seen = 0;
  for (const Line& line : harness.lines()) seen += line.kind == "SEEN";
  EXPECT_EQ(seen, static_cast<int>(kSaveHits.size()) - 1);
}

std::vector<std::string> Kinds(const std::vector<Line>& lines) {
  std::vector<std::string> out;
  for (const Line& l : lines) out.push_back(l.kind + " " + l.name);
  return out;
}

// Under the durability journal (KILLPOINT_SHADOW, as the harness sets it for a power attempt)
// the supervisor records each sync of a file as the shim does, and the sync goes one way: whole
// (F) or what was added since (A, also for writes at the file position, which the supervisor
// knows the offset of), whole after a truncate, an O_DSYNC write and an msync recorded as the
// syncs they are. A directory's sync waits, whatever KILLPOINT_WAIT_OPS says.
TEST_F(SupervisorTest, UnderTheDurabilityJournalSyncsAreRecordedAndOnlyADirectorysSyncWaits) {
  std::string shadow = root_ + "/durability";
  ASSERT_EQ(::mkdir(shadow.c_str(), 0755), 0);
  extra_env_["KILLPOINT_ARMED"] = "";
  extra_env_["KILLPOINT_WAIT_OPS"] = "rename,unlink";
  extra_env_["KILLPOINT_SHADOW"] = shadow;
  FakeHarness harness;
  JobResult r = Probe("journal", &harness);
  ASSERT_EQ(r.exit_code, 0) << r;
  harness.WaitIdle();
  EXPECT_THAT(Kinds(harness.lines()),
              ElementsAre("SEEN open:log", "SEEN write:log", "SEEN fsync:log", "SEEN write:log",
                          "SEEN fsync:log", "SEEN truncate:log", "SEEN write:log", "SEEN fsync:log",
                          "SEEN close:log", "SEEN open:seq", "SEEN write:seq", "SEEN fsync:seq",
                          "SEEN write:seq", "SEEN fsync:seq", "SEEN close:seq", "SEEN open:dsync",
                          "SEEN write:dsync", "SEEN fdatasync:dsync", "SEEN close:dsync",
                          "SEEN open:map.bin", "SEEN truncate:map.bin", "SEEN fdatasync:map.bin",
                          "SEEN close:map.bin", "HIT fsync:.", "SEEN close:."));
  // One data file, the supervisor's, named by its pid as the lines are.
  std::vector<std::string> data;
  for (const auto& e : std::filesystem::directory_iterator(shadow)) {
    if (e.path().filename().string().rfind("data-", 0) == 0)
      data.push_back(e.path().filename().string());
  }
  ASSERT_EQ(data.size(), 1u);
  std::string pid = data[0].substr(5);
  auto ino = [&](const std::string& name) {
    struct stat st {};
    EXPECT_EQ(::stat(Sandbox(name).c_str(), &st), 0) << name;
    return std::to_string(st.st_ino) + " " + pid + " ";
  };
  EXPECT_EQ(ReadFile(shadow + "/journal"), "F " + ino("log") + "0 3\n" +         //
                                               "A " + ino("log") + "3 2 3\n" +   //
                                               "F " + ino("log") + "5 3\n" +     //
                                               "F " + ino("seq") + "8 2\n" +     //
                                               "A " + ino("seq") + "10 2 2\n" +  //
                                               "F " + ino("dsync") + "12 2\n" +  //
                                               "F " + ino("map.bin") + "14 4096\n");
  std::string copied = ReadFile(shadow + "/" + data[0]);
  EXPECT_EQ(copied.substr(0, 20), "abcdeaXY1234dsmapped");
  EXPECT_EQ(copied.size(), 14u + 4096u);
}

// A thread that does not lead its process makes the calls: its points carry the process's pid.
TEST_F(SupervisorTest, AThreadsPointsCarryItsProcesssPid) {
  FakeHarness harness;
  JobResult r = Probe("thread", &harness);
  ASSERT_EQ(r.exit_code, 0) << r;
  harness.WaitIdle();
  EXPECT_THAT(harness.hits(), ElementsAre("open:thread.txt", "write:thread.txt", "fsync:thread.txt",
                                          "close:thread.txt"));
  for (const Line& line : harness.lines()) EXPECT_EQ(std::to_string(line.pid) + "\n", r.out);
  EXPECT_EQ(ReadFile(Sandbox("thread.txt")), "t\n");
}

// More processes than the supervisor keeps entries for (tasks.h): each still named by its pid.
TEST_F(SupervisorTest, ManyProcessesAreEachNamedByTheirOwnPid) {
  FakeHarness harness;
  JobResult r = Run({"/bin/sh", "-c",
                     "i=0; while [ $i -lt 300 ]; do /bin/sh -c \"echo x > f$i\"; i=$((i+1)); done"},
                    &harness);
  ASSERT_EQ(r.exit_code, 0) << r;
  harness.WaitIdle();
  std::set<int> pids;
  int opens = 0;
  for (const Line& line : harness.lines()) {
    if (line.name.rfind("open:f", 0) != 0) continue;
    ++opens;
    pids.insert(line.pid);
  }
  EXPECT_EQ(opens, 300);
  EXPECT_EQ(pids.size(), 300u) << "each file is written by its own shell";
}

// A process that gets the number of one that ended (here by asking for it, in a pid namespace
// of the job's own) is not taken for the one that ended: its write is a point, made through its
// own descriptor. The supervisor keeps what it learnt of the first (tasks.h).
TEST_F(SupervisorTest, AProcessGivenTheNumberOfOneThatEndedIsNotTakenForIt) {
  if (::access("/usr/bin/unshare", X_OK) != 0) GTEST_SKIP() << "no unshare";
  FakeHarness harness;
  std::vector<std::string> argv = {"/usr/bin/unshare",
                                   "-Urpf",
                                   "--mount-proc",
                                   Supervisor(),
                                   "--",
                                   "/bin/sh",
                                   "-c",
                                   "sh -c 'echo a > a; echo $$ > pid_a'; read a < pid_a;"
                                   "echo $((a - 1)) > /proc/sys/kernel/ns_last_pid;"
                                   "sh -c 'echo b > b; echo $$ > pid_b'"};
  JobSpec spec = SandboxJob(std::move(argv), sandbox_, root_, extra_env_, &harness);
  spec.preload = false;
  JobResult r = RunJob(spec, &harness);
  if (r.exit_code != 0 && r.err.find("unshare") != std::string::npos)
    GTEST_SKIP() << "no pid namespace here: " << r.err;
  ASSERT_EQ(r.exit_code, 0) << r;
  harness.WaitIdle();
  std::string a = ReadFile(Sandbox("pid_a")), b = ReadFile(Sandbox("pid_b"));
  if (a != b) GTEST_SKIP() << "the second process did not get the first one's number";
  EXPECT_EQ(ReadFile(Sandbox("b")), "b\n");
  int writes = 0;
  for (const Line& line : harness.lines()) {
    if (line.name != "write:b") continue;
    ++writes;
    EXPECT_EQ(std::to_string(line.pid) + "\n", b);
  }
  EXPECT_EQ(writes, 1) << "the write of the second process is a point";
}

TEST_F(SupervisorTest, ExitCodesAndSignalsPassThrough) {
  FakeHarness harness;
  EXPECT_EQ(Probe("exit", &harness).exit_code, 2);  // "exit" without its code
  EXPECT_EQ(Run({KP_SUPERVISOR_PROBE, "exit", "7"}, &harness).exit_code, 7);
  EXPECT_EQ(Run({"/bin/sh", "-c", "kill -TERM $$"}, &harness).term_signal, SIGTERM);
  EXPECT_EQ(Run({"/nonexistent/job"}, &harness).exit_code, 127);
}

// Outside the harness (no KILLPOINT_CTL) the job runs as in production: no filter, no channel.
TEST_F(SupervisorTest, WithoutTheHarnessTheJobRunsUnsupervised) {
  JobResult r = Probe("save", nullptr);
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(ReadFile(Sandbox("state.json")), "{\"n\": 1}\n");
  JobResult seccomp = Run({"/bin/grep", "-c", "Seccomp:\t0", "/proc/self/status"}, nullptr);
  EXPECT_EQ(seccomp.out, "1\n") << "the job runs under no filter";
}

}  // namespace
}  // namespace killpoint::shim_testing
