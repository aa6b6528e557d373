// The syscall shim (harness/shim, docs/syscall-shim.md) loaded into real programs: Python,
// the shell, coreutils, SQLite and a C probe, against a fake harness that records every line
// and answers CONTINUE, AFTER, PARTIAL n, ERROR, or kills the job's process group.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "fake_harness.h"
#include "job.h"

namespace killpoint::shim_testing {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

// Writes a file outside the sandbox (argv[1]), then state.json the atomic way: a temp file,
// fsync'ed, renamed over the target, and the directory fsync'ed.
constexpr const char* kAtomicReplace = R"PY(
import os, sys
w = os.environ["KILLPOINT_WORKDIR"]
with open(sys.argv[1], "w") as f:
    f.write("elsewhere\n")
tmp = os.path.join(w, "state.json.tmp")
with open(tmp, "w") as f:
    f.write('{"day": "2026-11-05", "n": 42}\n')
    f.flush()
    os.fsync(f.fileno())
os.replace(tmp, os.path.join(w, "state.json"))
fd = os.open(w, os.O_RDONLY)
os.fsync(fd)
os.close(fd)
)PY";
constexpr const char* kState = "{\"day\": \"2026-11-05\", \"n\": 42}\n";

const std::vector<std::string> kAtomicReplaceHits = {"open:state.json.tmp",
                                                     "write:state.json.tmp",
                                                     "fsync:state.json.tmp",
                                                     "close:state.json.tmp",
                                                     "rename:state.json.tmp:state.json",
                                                     "fsync:.",
                                                     "close:."};

std::string Python() {
  for (const char* candidate : {"/usr/bin/python3", "/usr/local/bin/python3"}) {
    if (::access(candidate, X_OK) == 0) return candidate;
  }
  return "";
}

class ShimTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(Exists(ShimPath())) << ShimPath();
    root_ = MakeTempRoot("kp-shim-test");
    ASSERT_NE(root_, "");
    sandbox_ = root_ + "/sandbox";
    outside_ = root_ + "/outside";
    ASSERT_EQ(::mkdir(sandbox_.c_str(), 0755), 0);
    ASSERT_EQ(::mkdir(outside_.c_str(), 0755), 0);
  }
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(root_, ignored);
  }

  std::string Sandbox(const std::string& name) const { return sandbox_ + "/" + name; }

  // Runs argv in the sandbox with the shim; KILLPOINT_CTL points at `harness` when given.
  JobResult Run(std::vector<std::string> argv, FakeHarness* harness, bool preload = true) {
    JobSpec spec = SandboxJob(std::move(argv), sandbox_, root_, extra_env_, harness);
    spec.preload = preload;
    return RunJob(spec, harness);
  }

  JobResult RunAtomicReplace(FakeHarness* harness, bool preload = true) {
    return Run({python_, "-c", kAtomicReplace, outside_ + "/other"}, harness, preload);
  }

  JobResult RunProbe(std::vector<std::string> args, FakeHarness* harness) {
    args.insert(args.begin(), KP_SHIM_PROBE);
    return Run(std::move(args), harness);
  }

  std::string root_, sandbox_, outside_;
  std::string python_ = Python();
  std::map<std::string, std::string> extra_env_;  // KILLPOINT_ARMED, KILLPOINT_WAIT_OPS
};

// The realpath of an existing path: what the shim reports of a file outside the sandbox.
std::string Real(const std::string& path) { return std::filesystem::canonical(path).string(); }

#define REQUIRE_PYTHON() \
  if (python_.empty()) GTEST_SKIP() << "no python3"

// The lines of crash points, without the reports of writes outside the sandbox (v1.5).
std::vector<Line> Points(const FakeHarness& harness) {
  std::vector<Line> out = harness.lines();
  std::erase_if(out, [](const Line& l) { return l.kind == "OUTSIDE"; });
  return out;
}

std::vector<Line> Only(const std::vector<Line>& lines, const std::string& kind) {
  std::vector<Line> out;
  std::copy_if(lines.begin(), lines.end(), std::back_inserter(out),
               [&](const Line& l) { return l.kind == kind; });
  return out;
}

// ---- Python: the atomic-replace idiom ----

TEST_F(ShimTest, PythonAtomicReplaceHitsEveryStepInOrderAndNothingOutside) {
  REQUIRE_PYTHON();
  std::vector<std::vector<std::string>> runs;
  for (int run = 0; run < 2; ++run) {  // the sequence is the same from one run to the next
    std::filesystem::remove(Sandbox("state.json"));
    FakeHarness harness;
    JobResult result = RunAtomicReplace(&harness);
    ASSERT_EQ(result.exit_code, 0) << result;
    EXPECT_THAT(harness.hits(), ElementsAreArray(kAtomicReplaceHits));
    std::vector<Line> lines = Only(harness.lines(), "HIT");
    EXPECT_EQ(harness.connections(), 1);
    // The file outside: one report, one way, not a crash point (protocol v1.5).
    std::vector<Line> outside = Only(harness.lines(), "OUTSIDE");
    ASSERT_EQ(outside.size(), 1u);
    EXPECT_EQ(outside[0].name, "open");
    EXPECT_EQ(outside[0].path, Real(outside_) + "/other");
    EXPECT_EQ(harness.lines().size(), lines.size() + 1);
    for (const Line& line : lines) {
      EXPECT_EQ(line.kind, "HIT");
      EXPECT_GT(line.pid, 0);
      EXPECT_EQ(line.pid, lines[0].pid);
      // Only writes carry a size: the bytes this write() was asked for.
      EXPECT_EQ(line.bytes, line.name == "write:state.json.tmp" ? std::string(kState).size() : -1)
          << line.name;
    }
    runs.push_back(harness.hits());
    EXPECT_EQ(ReadFile(Sandbox("state.json")), kState);
    EXPECT_FALSE(Exists(Sandbox("state.json.tmp")));
    EXPECT_EQ(ReadFile(outside_ + "/other"), "elsewhere\n");
  }
  EXPECT_EQ(runs[0], runs[1]);
}

// mkstemp's O_CREAT|O_EXCL open is flagged "excl" (protocol v1.3), so that the harness can
// name the random file by its creation order; a plain create and a failing exclusive create
// (the file exists: a lock held) are not.
TEST_F(ShimTest, ExclusiveCreatesAreFlaggedAndNothingElse) {
  REQUIRE_PYTHON();
  FakeHarness harness;
  JobResult result = Run({python_, "-c", R"PY(
import os, tempfile
w = os.environ["KILLPOINT_WORKDIR"]
fd, tmp = tempfile.mkstemp(dir=w)
os.write(fd, b"x")
os.close(fd)
os.replace(tmp, os.path.join(w, "state.json"))
open(os.path.join(w, "plain"), "w").close()
open(os.path.join(w, "lock"), "x").close()
try:
    os.open(os.path.join(w, "lock"), os.O_CREAT | os.O_EXCL | os.O_WRONLY)
except FileExistsError:
    pass
)PY"},
                         &harness);
  ASSERT_EQ(result.exit_code, 0) << result;
  std::vector<std::string> excl, opens;
  for (const Line& line : harness.lines()) {
    if (line.name.rfind("open:", 0) != 0) continue;
    opens.push_back(line.name);
    if (line.excl) excl.push_back(line.name);
    EXPECT_EQ(line.bytes, -1);
  }
  ASSERT_EQ(opens.size(), 4u);
  EXPECT_THAT(opens[0], ::testing::StartsWith("open:tmp"));
  EXPECT_THAT(excl, ElementsAre(opens[0], "open:lock"));  // the second open:lock fails: no flag
  EXPECT_EQ(opens[3], "open:lock");
}

TEST_F(ShimTest, KillBeforeRenameLeavesOnlyTheTempFile) {
  REQUIRE_PYTHON();
  FakeHarness harness(At("rename:state.json.tmp:state.json", Reply::Kill()));
  JobResult result = RunAtomicReplace(&harness);
  EXPECT_EQ(result.term_signal, SIGKILL) << result;
  EXPECT_TRUE(harness.killed());
  EXPECT_THAT(harness.hits(),
              ElementsAre("open:state.json.tmp", "write:state.json.tmp", "fsync:state.json.tmp",
                          "close:state.json.tmp", "rename:state.json.tmp:state.json"));
  EXPECT_FALSE(Exists(Sandbox("state.json")));
  EXPECT_EQ(ReadFile(Sandbox("state.json.tmp")), kState);
}

TEST_F(ShimTest, KillAfterRenameLeavesTheFullState) {
  REQUIRE_PYTHON();
  FakeHarness harness(At("rename:state.json.tmp:state.json", Reply::Send("AFTER"), Reply::Kill()));
  JobResult result = RunAtomicReplace(&harness);
  EXPECT_EQ(result.term_signal, SIGKILL) << result;
  std::vector<Line> lines = Points(harness);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back().kind, "DONE");
  EXPECT_EQ(lines.back().name, "rename:state.json.tmp:state.json");
  EXPECT_EQ(lines.back().pid, lines.front().pid);
  EXPECT_EQ(ReadFile(Sandbox("state.json")), kState);
  EXPECT_FALSE(Exists(Sandbox("state.json.tmp")));
}

TEST_F(ShimTest, AfterThenContinueGoesOnNormally) {
  REQUIRE_PYTHON();
  FakeHarness harness(At("fsync:.", Reply::Send("AFTER"), Reply::Continue()));
  JobResult result = RunAtomicReplace(&harness);
  ASSERT_EQ(result.exit_code, 0) << result;
  std::vector<Line> lines = Points(harness);
  ASSERT_EQ(lines.size(), kAtomicReplaceHits.size() + 1);
  EXPECT_EQ(lines[6].kind, "DONE");
  EXPECT_EQ(lines[6].name, "fsync:.");
  EXPECT_EQ(lines[7].name, "close:.");
  EXPECT_EQ(ReadFile(Sandbox("state.json")), kState);
}

TEST_F(ShimTest, PartialWriteLeavesExactlyThePrefix) {
  REQUIRE_PYTHON();
  FakeHarness harness(At("write:state.json.tmp", Reply::Send("PARTIAL 5"), Reply::Kill()));
  JobResult result = RunAtomicReplace(&harness);
  EXPECT_EQ(result.term_signal, SIGKILL) << result;
  std::vector<Line> done = Only(harness.lines(), "DONE");
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].name, "write:state.json.tmp");
  EXPECT_EQ(done[0].bytes, 5);  // what reached the file
  EXPECT_EQ(ReadFile(Sandbox("state.json.tmp")), std::string(kState).substr(0, 5));
  EXPECT_FALSE(Exists(Sandbox("state.json")));
}

TEST_F(ShimTest, ErrorAnswerExits70WithTheMessage) {
  REQUIRE_PYTHON();
  FakeHarness harness(At("open:state.json.tmp", Reply::Send("ERROR no such trial")));
  JobResult result = RunAtomicReplace(&harness);
  EXPECT_EQ(result.exit_code, 70) << result;
  EXPECT_THAT(result.err, HasSubstr("killpoint shim: at open:state.json.tmp: ERROR no such trial"));
  EXPECT_FALSE(Exists(Sandbox("state.json.tmp")));  // stopped before the open
}

TEST_F(ShimTest, ErrorAnswerToDoneExits70) {
  REQUIRE_PYTHON();
  FakeHarness harness(At("fsync:state.json.tmp", Reply::Send("AFTER"), Reply::Send("ERROR gone")));
  JobResult result = RunAtomicReplace(&harness);
  EXPECT_EQ(result.exit_code, 70) << result;
  EXPECT_THAT(result.err, HasSubstr("killpoint shim: at fsync:state.json.tmp (DONE): ERROR gone"));
}

TEST_F(ShimTest, UnexpectedAnswerExits70) {
  REQUIRE_PYTHON();
  // PARTIAL is only for writes.
  FakeHarness harness(At("fsync:state.json.tmp", Reply::Send("PARTIAL 3")));
  JobResult result = RunAtomicReplace(&harness);
  EXPECT_EQ(result.exit_code, 70) << result;
  EXPECT_THAT(result.err, HasSubstr("unexpected answer 'PARTIAL 3'"));
}

TEST_F(ShimTest, UnreachableControlChannelExits70) {
  REQUIRE_PYTHON();
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), len), 0);
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  ::close(fd);  // nobody listens there now
  JobSpec spec;
  spec.argv = {python_, "-c", kAtomicReplace, outside_ + "/other"};
  spec.cwd = sandbox_;
  spec.output_dir = root_;
  spec.env = {{"KILLPOINT_WORKDIR", sandbox_},
              {"KILLPOINT_CTL", "127.0.0.1:" + std::to_string(ntohs(addr.sin_port))}};
  JobResult result = RunJob(spec, nullptr);
  EXPECT_EQ(result.exit_code, 70) << result;
  // The first line the job sends: its write outside the sandbox (protocol v1.5).
  EXPECT_THAT(result.err, HasSubstr("killpoint shim: at OUTSIDE open: cannot connect"));
}

// ---- not under the harness ----

TEST_F(ShimTest, WithoutControlChannelNothingConnectsAndTheFilesAreTheSame) {
  REQUIRE_PYTHON();
  FakeHarness harness;  // listening, but nobody is told where
  JobResult with_shim = RunAtomicReplace(nullptr);
  ASSERT_EQ(with_shim.exit_code, 0) << with_shim;
  EXPECT_EQ(ReadFile(Sandbox("state.json")), kState);
  EXPECT_FALSE(Exists(Sandbox("state.json.tmp")));

  std::filesystem::remove(Sandbox("state.json"));
  JobResult without_shim = RunAtomicReplace(nullptr, /*preload=*/false);
  ASSERT_EQ(without_shim.exit_code, 0) << without_shim;
  EXPECT_EQ(ReadFile(Sandbox("state.json")), kState);
  EXPECT_FALSE(Exists(Sandbox("state.json.tmp")));
  EXPECT_EQ(harness.connections(), 0);
}

TEST_F(ShimTest, WithoutWorkdirNothingConnects) {
  REQUIRE_PYTHON();
  FakeHarness harness;
  JobSpec spec;
  spec.argv = {python_, "-c", kAtomicReplace, outside_ + "/other"};
  spec.cwd = sandbox_;
  spec.output_dir = root_;
  spec.env = {{"KILLPOINT_WORKDIR", ""}, {"KILLPOINT_CTL", harness.address()}};
  // The script reads KILLPOINT_WORKDIR for its paths: give it through another variable.
  spec.argv[2] = std::string("import os; os.environ['KILLPOINT_WORKDIR'] = '") + sandbox_ + "'\n" +
                 kAtomicReplace;
  JobResult result = RunJob(spec, &harness);
  ASSERT_EQ(result.exit_code, 0) << result;
  EXPECT_EQ(ReadFile(Sandbox("state.json")), kState);
  EXPECT_EQ(harness.connections(), 0);
}

// ---- the shell and the programs it runs ----

TEST_F(ShimTest, ShellRedirectMkdirAndRm) {
  FakeHarness harness;
  JobResult result = Run({"/bin/sh", "-c", "echo hi > f; mkdir d; rm f"}, &harness);
  ASSERT_EQ(result.exit_code, 0) << result;
  // The shell opens f, moves it to fd 1 (closing the original fd), echo writes; mkdir and rm
  // are programs of their own, exec'd with the shim still preloaded.
  EXPECT_THAT(harness.hits(), ElementsAre("open:f", "close:f", "write:f", "mkdir:d", "unlink:f"));
  std::vector<Line> lines = harness.lines();
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0].pid, lines[2].pid);  // the shell itself
  EXPECT_NE(lines[3].pid, lines[0].pid);  // mkdir
  EXPECT_NE(lines[4].pid, lines[3].pid);  // rm
  EXPECT_EQ(harness.connections(), 3);
  EXPECT_TRUE(Exists(Sandbox("d")));
  EXPECT_FALSE(Exists(Sandbox("f")));
}

TEST_F(ShimTest, ProgramWritingToAnInheritedRedirectIsSeen) {
  // cat inherits fd 1 open on out (the shim adopts it at load) and copies with
  // copy_file_range; PARTIAL cuts the copy.
  std::ofstream(Sandbox("in")) << "0123456789\n";
  FakeHarness harness(At("write:out", Reply::Send("PARTIAL 4"), Reply::Kill()));
  JobResult result = Run({"/bin/sh", "-c", "cat in > out; echo unreachable > after"}, &harness);
  EXPECT_EQ(result.term_signal, SIGKILL) << result;
  std::vector<Line> lines = harness.lines();
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back().kind, "DONE");
  EXPECT_EQ(lines.back().name, "write:out");
  EXPECT_EQ(lines.back().bytes, 4);
  auto hit = std::find_if(lines.begin(), lines.end(),
                          [](const Line& l) { return l.kind == "HIT" && l.name == "write:out"; });
  ASSERT_NE(hit, lines.end());
  EXPECT_EQ(hit->bytes, 11);  // what is left of the input, not the exabytes cat asks for
  EXPECT_NE(hit->pid, lines.front().pid);  // cat, not the shell
  EXPECT_EQ(ReadFile(Sandbox("out")), "0123");
  EXPECT_FALSE(Exists(Sandbox("after")));
}

TEST_F(ShimTest, WorkdirReachedThroughASymlink) {
  // The harness may name the sandbox through a symlink; getcwd() and /proc give the real path.
  std::string link = root_ + "/link";
  ASSERT_EQ(::symlink(sandbox_.c_str(), link.c_str()), 0);
  FakeHarness harness;
  JobSpec spec;
  spec.argv = {"/bin/sh", "-c", "echo hi > f; cat f > g"};
  spec.cwd = link;
  spec.output_dir = root_;
  spec.env = {{"KILLPOINT_WORKDIR", link}, {"KILLPOINT_CTL", harness.address()}};
  JobResult result = RunJob(spec, &harness);
  ASSERT_EQ(result.exit_code, 0) << result;
  EXPECT_THAT(harness.hits(), ElementsAre("open:f", "close:f", "write:f", "open:g", "close:g",
                                          "write:g", "write:g", "close:f"));
  EXPECT_EQ(ReadFile(Sandbox("g")), "hi\n");
}

// ---- writes outside the sandbox (protocol v1.5, docs/syscall-shim.md) ----

// Every way a shell and coreutils change files: what lies outside the sandbox, by its real path
// (through "..", through a symlink in the sandbox), is reported once per op and path in a
// process; the sandbox, a symlink that leads back into it, /dev/null, /dev/stdout and
// /proc/self/fd (the harness's captured output, outside the sandbox) are not.
TEST_F(ShimTest, WritesOutsideTheSandboxAreReportedOnceByTheirRealPath) {
  ASSERT_EQ(::symlink(outside_.c_str(), Sandbox("out-link").c_str()), 0);
  ASSERT_EQ(::symlink(sandbox_.c_str(), (root_ + "/in-link").c_str()), 0);
  FakeHarness harness;
  JobResult result = Run(
      {"/bin/sh", "-c",
       "echo a > inside; echo b > ../outside/f1; echo c > ../outside/f1; "
       "echo d > out-link/f2; echo e > ../in-link/f3; echo f > /dev/null; "
       "echo g > /proc/self/fd/1; echo h > /dev/stdout; "
       "mkdir ../outside/d && rmdir ../outside/d && mv ../outside/f1 ../outside/f4 && "
       "ln -s x ../outside/s && ln ../outside/f4 ../outside/h && rm ../outside/h ../outside/s && "
       "cat inside > ../in-link/f5"},
      &harness);
  ASSERT_EQ(result.exit_code, 0) << result;
  std::string o = Real(outside_);
  std::vector<std::string> reported;
  for (const Line& l : Only(harness.lines(), "OUTSIDE")) reported.push_back(l.name + " " + l.path);
  std::sort(reported.begin(), reported.end());
  EXPECT_THAT(
      reported,
      ElementsAre("link " + o + "/h", "mkdir " + o + "/d", "open " + o + "/f1", "open " + o + "/f2",
                  "rename " + o + "/f1", "rename " + o + "/f4", "rmdir " + o + "/d",
                  "symlink " + o + "/s", "unlink " + o + "/h", "unlink " + o + "/s"));
  EXPECT_EQ(ReadFile(outside_ + "/f2"), "d\n");
  EXPECT_EQ(ReadFile(Sandbox("f5")), "a\n");
}

TEST_F(ShimTest, OutsidePathsAreSentEncodedAndNeverWithoutTheHarness) {
  FakeHarness harness;
  JobResult result = Run({"/bin/sh", "-c", "echo x > '../outside/a b%c'"}, &harness);
  ASSERT_EQ(result.exit_code, 0) << result;
  ASSERT_EQ(Only(harness.lines(), "OUTSIDE").size(), 1u);
  EXPECT_EQ(Only(harness.lines(), "OUTSIDE")[0].path, Real(outside_) + "/a%20b%25c");

  FakeHarness unused;  // listening, but nobody is told where
  ASSERT_EQ(Run({"/bin/sh", "-c", "echo x > ../outside/c"}, nullptr).exit_code, 0);
  EXPECT_EQ(unused.connections(), 0);
}

// ---- the C probe ----

TEST_F(ShimTest, DupedFdsKeepTheOriginalName) {
  FakeHarness harness;
  JobResult result = RunProbe({"dup"}, &harness);
  ASSERT_EQ(result.exit_code, 0) << result;
  EXPECT_THAT(harness.hits(), ElementsAre("open:data.bin", "write:data.bin", "fdatasync:data.bin",
                                          "truncate:data.bin", "close:data.bin", "close:data.bin",
                                          "close:data.bin"));
  EXPECT_EQ(harness.lines()[1].bytes, 12);
  EXPECT_EQ(ReadFile(Sandbox("data.bin")), "hello world");
}

// ---- writes the shim cannot see ----

TEST_F(ShimTest, UnseenWritesAreReportedBeforeTheCloseOrDupThatNoticesThem) {
  FakeHarness harness;
  JobResult result = RunProbe({"unseen"}, &harness);
  ASSERT_EQ(result.exit_code, 0) << result;
  EXPECT_THAT(harness.hits(),
              ElementsAre("open:raw.txt", "write:raw.txt", "close:raw.txt", "open:redirect.txt",
                          "close:redirect.txt", "write:redirect.txt"));
  std::vector<Line> lines = harness.lines();
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_EQ(lines[1].unseen, "close");
  EXPECT_EQ(lines[1].bytes, 6);
  EXPECT_EQ(lines[5].unseen, "dup2");
  EXPECT_EQ(lines[5].bytes, 3);
  for (size_t i : {0, 2, 3, 4}) EXPECT_EQ(lines[i].unseen, "") << lines[i].name;
}

// Stores through a shared mapping (SQLite's -shm) move the file's mtime when the kernel takes
// the write fault, within the coarse clock's tick or after it: reported, they made a run's
// history depend on timing. A mapped file that grows is still an unseen write.
TEST_F(ShimTest, AMappedFileWhoseMtimeAloneMovedIsNoUnseenWrite) {
  FakeHarness harness;
  JobResult result = RunProbe({"mmap"}, &harness);
  ASSERT_EQ(result.exit_code, 0) << result;
  EXPECT_THAT(
      harness.hits(),
      ElementsAre("open:mapped.bin", "truncate:mapped.bin", "close:mapped.bin", "open:grown.bin",
                  "truncate:grown.bin", "write:grown.bin", "close:grown.bin"));
  std::vector<Line> lines = harness.lines();
  ASSERT_EQ(lines.size(), 7u);
  EXPECT_EQ(lines[5].unseen, "close");
  EXPECT_EQ(lines[5].bytes, 1);
  EXPECT_EQ(ReadFile(Sandbox("mapped.bin")).substr(0, 6), "mapped");
}

TEST_F(ShimTest, KillAtAnUnseenWriteKeepsItsDataAndAfterSendsDone) {
  FakeHarness killer(At("write:raw.txt", Reply::Kill()));
  JobResult killed = RunProbe({"unseen"}, &killer);
  EXPECT_EQ(killed.term_signal, SIGKILL) << killed;
  EXPECT_EQ(ReadFile(Sandbox("raw.txt")), "hello\n");  // written before the shim noticed it
  EXPECT_EQ(killer.hits().back(), "write:raw.txt");
  FakeHarness after(At("write:raw.txt", Reply::Send("AFTER"), Reply::Continue()));
  JobResult result = RunProbe({"unseen"}, &after);
  ASSERT_EQ(result.exit_code, 0) << result;
  std::vector<Line> lines = after.lines();
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(lines[2].kind, "DONE");
  EXPECT_EQ(lines[2].bytes, 6);
}

TEST_F(ShimTest, BashPrintfThroughStdioIsAnUnseenWrite) {
  if (!Exists("/bin/bash")) GTEST_SKIP() << "no bash";
  FakeHarness harness;
  // printf (stdio) alone; cat's seen writes then printf's through the same redirect; cat alone.
  JobResult result = Run(
      {"/bin/bash", "-c", "printf '%s\\n' x > f; { cat f; printf y; } > g; cat f > h; echo done"},
      &harness);
  ASSERT_EQ(result.exit_code, 0) << result;
  std::vector<std::string> unseen;
  for (const Line& l : harness.lines()) {
    if (!l.unseen.empty())
      unseen.push_back(l.name + " " + std::to_string(l.bytes) + " at " + l.unseen);
  }
  // bash restores its stdout with dup2 after each redirect: there the shim notices. cat's
  // bytes in g were seen (by cat's own shim, which left the stamp on the file): only printf's
  // byte is unseen, and h, which only cat wrote, has none.
  EXPECT_THAT(unseen, ElementsAre("write:f 2 at dup2", "write:g 1 at dup2"))
      << ::testing::PrintToString(harness.hits());
  EXPECT_THAT(harness.hits(), Contains("write:h"));
  EXPECT_EQ(ReadFile(Sandbox("g")), "x\ny");
}

TEST_F(ShimTest, PartialPwritevCutsAcrossTheIovecs) {
  FakeHarness harness(At("write:data.bin", Reply::Send("PARTIAL 8"), Reply::Continue()));
  JobResult result = RunProbe({"dup"}, &harness);
  ASSERT_EQ(result.exit_code, 0) << result;
  EXPECT_THAT(result.out, HasSubstr("pwritev=8"));  // the bytes actually written
  // The probe goes on to ftruncate(11), which pads the 8 bytes with zeros.
  EXPECT_EQ(ReadFile(Sandbox("data.bin")), std::string("hello wo\0\0\0", 11));
}

// The HIT lines' writes as "NAME BYTES at OFFSET" (v1.7; -1: no offset sent).
std::vector<std::string> WritesWithOffsets(const std::vector<Line>& lines, const char* kind) {
  std::vector<std::string> out;
  for (const Line& l : lines) {
    if (l.kind == kind && l.name.rfind("write:", 0) == 0)
      out.push_back(l.name + " " + std::to_string(l.bytes) + " at " + std::to_string(l.offset));
  }
  return out;
}

// A write's HIT says where in its file it lands (protocol v1.7), so that a kill under the process
// model can cut it at a page boundary of the file (docs/persistence-models.md): a pwrite's offset,
// the position for write and writev, the file's size for an O_APPEND write (a pwrite too).
TEST_F(ShimTest, AWritesHitSaysWhereItLands) {
  FakeHarness harness;
  JobResult result = RunProbe({"offsets"}, &harness);
  ASSERT_EQ(result.exit_code, 0) << result;
  EXPECT_THAT(
      WritesWithOffsets(harness.lines(), "HIT"),
      ElementsAre("write:off.bin 10000 at 100", "write:off.bin 10 at 5000",
                  "write:off.bin 7 at 5010", "write:app.bin 7 at 0", "write:app.bin 5 at 7"));
  EXPECT_EQ(ReadFile(Sandbox("app.bin")).size(), 12u);
}

// A write reported one way is never cut: it carries no offset, and costs no lseek.
TEST_F(ShimTest, AWriteReportedOneWayCarriesNoOffset) {
  extra_env_["KILLPOINT_ARMED"] = "";
  FakeHarness harness;
  JobResult result = RunProbe({"offsets"}, &harness);
  ASSERT_EQ(result.exit_code, 0) << result;
  harness.WaitIdle();
  EXPECT_THAT(
      WritesWithOffsets(harness.lines(), "SEEN"),
      ElementsAre("write:off.bin 10000 at -1", "write:off.bin 10 at -1", "write:off.bin 7 at -1",
                  "write:app.bin 7 at -1", "write:app.bin 5 at -1"));
}

TEST_F(ShimTest, PartialPwritevThenKillLeavesThePrefix) {
  FakeHarness harness(At("write:data.bin", Reply::Send("PARTIAL 8"), Reply::Kill()));
  JobResult result = RunProbe({"dup"}, &harness);
  EXPECT_EQ(result.term_signal, SIGKILL) << result;
  EXPECT_EQ(ReadFile(Sandbox("data.bin")), "hello wo");
}

TEST_F(ShimTest, DirfdsDotDotAndOutsidePaths) {
  std::ofstream(outside_ + "/in") << "from outside\n";
  FakeHarness harness;
  JobResult result = RunProbe({"paths", outside_ + "/in"}, &harness);
  ASSERT_EQ(result.exit_code, 0) << result;
  EXPECT_THAT(
      harness.hits(),
      ElementsAre("mkdir:sub", "open:sub/x", "write:sub/x", "close:sub/x", "rename:sub/x:y",
                  "truncate:y",
                  // a path outside the sandbox is absolute; ' ' is not a name character
                  "rename:" + outside_ + "/in:moved_in", "unlink:y", "close:sub", "unlink:sub"));
  EXPECT_EQ(ReadFile(Sandbox("moved in")), "from outside\n");
}

TEST_F(ShimTest, ErrnoIsWhatTheRealCallLeft) {
  FakeHarness harness;
  JobResult result = RunProbe({"errno"}, &harness);
  ASSERT_EQ(result.exit_code, 0) << result;
  EXPECT_THAT(harness.hits(), ElementsAre("open:e", "write:e", "fsync:e", "unlink:missing",
                                          "mkdir:e", "rename:missing:other", "close:e"));
}

// KILLPOINT_SKIP_FSYNC=1 (the runner's default, docs/decisions.md): the shim answers fsync and
// fdatasync of sandbox files itself. A FIFO shows whether the kernel was asked: it refuses to
// sync one with EINVAL. The crash points are reported either way.
TEST_F(ShimTest, SkipFsyncAnswersSandboxSyncsWithoutTheKernel) {
  const std::vector<std::string> hits = {"fsync:fifo", "fdatasync:fifo", "close:fifo"};
  {
    FakeHarness harness;
    JobResult result = RunProbe({"syncfifo"}, &harness);
    ASSERT_EQ(result.exit_code, 0) << result;
    EXPECT_THAT(result.out, HasSubstr("fsync=-1 errno=" + std::to_string(EINVAL)));
    EXPECT_THAT(harness.hits(), ElementsAreArray(hits));
  }
  std::filesystem::remove(sandbox_ + "/fifo");
  extra_env_["KILLPOINT_SKIP_FSYNC"] = "1";
  FakeHarness harness;
  JobResult result = RunProbe({"syncfifo"}, &harness);
  ASSERT_EQ(result.exit_code, 0) << result;
  EXPECT_THAT(result.out, HasSubstr("fsync=0 errno=0\nfdatasync=0 errno=0"));
  EXPECT_THAT(harness.hits(), ElementsAreArray(hits));
}

TEST_F(ShimTest, ForkedChildHitsOnItsOwnConnectionWithItsPid) {
  FakeHarness harness;
  JobResult result = RunProbe({"fork"}, &harness);
  ASSERT_EQ(result.exit_code, 0) << result;
  EXPECT_THAT(harness.hits(),
              ElementsAre("open:parent.txt", "write:parent.txt", "close:parent.txt",
                          "open:child.txt", "write:child.txt", "close:child.txt", "open:parent.txt",
                          "write:parent.txt", "close:parent.txt"));
  std::vector<Line> lines = harness.lines();
  ASSERT_EQ(lines.size(), 9u);
  EXPECT_NE(lines[3].pid, lines[0].pid);
  EXPECT_NE(lines[3].connection, lines[0].connection);
  EXPECT_EQ(lines[6].pid, lines[0].pid);
  EXPECT_EQ(lines[6].connection, lines[0].connection);
  EXPECT_EQ(harness.connections(), 2);
}

// A child sharing the parent's memory (vfork, clone) closes the parent's tracked fd before it
// execs: that close is no point, and the parent's table still knows the fd afterwards.
TEST_F(ShimTest, AChildSharingTheParentsMemoryLeavesTheParentsTableAlone) {
  for (const char* mode : {"vfork", "clone"}) {
    FakeHarness harness;
    JobResult result = RunProbe({mode}, &harness);
    ASSERT_EQ(result.exit_code, 0) << mode << ": " << result;
    EXPECT_THAT(harness.hits(), ElementsAre("open:parent.txt", "write:parent.txt",
                                            "write:parent.txt", "close:parent.txt"))
        << mode;
  }
}

TEST_F(ShimTest, ThreadsTakeTurnsEvenAcrossAfter) {
  FakeHarness harness(At("write:t2.txt", Reply::Send("AFTER"), Reply::Continue()));
  JobResult result = RunProbe({"threads"}, &harness);
  ASSERT_EQ(result.exit_code, 0) << result;
  std::vector<Line> lines = harness.lines();
  int writes = 0, done = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].kind == "HIT" && lines[i].name.rfind("write:", 0) == 0) ++writes;
    if (lines[i].kind == "DONE") {
      ++done;
      // The DONE follows its own HIT: no other thread spoke in between.
      ASSERT_GT(i, 0u);
      EXPECT_EQ(lines[i - 1].kind, "HIT");
      EXPECT_EQ(lines[i - 1].name, "write:t2.txt");
    }
  }
  EXPECT_EQ(writes, 200);
  EXPECT_EQ(done, 50);
  EXPECT_EQ(harness.connections(), 1);
  for (int t = 0; t < 4; ++t) {
    EXPECT_EQ(ReadFile(Sandbox("t" + std::to_string(t) + ".txt")).size(), 500u);
  }
}

// ---- One-way reports (v1.2): KILLPOINT_ARMED names the one point that waits ----

std::vector<std::string> Kinds(const std::vector<Line>& lines) {
  std::vector<std::string> out;
  for (const Line& l : lines) out.push_back(l.kind + " " + l.name);
  return out;
}

TEST_F(ShimTest, OnlyTheArmedPointWaitsAndTheOthersArriveBeforeIt) {
  REQUIRE_PYTHON();
  extra_env_["KILLPOINT_ARMED"] = "rename:state.json.tmp:state.json";
  FakeHarness harness(At("rename:state.json.tmp:state.json", Reply::Kill()));
  JobResult result = RunAtomicReplace(&harness);
  EXPECT_EQ(result.term_signal, SIGKILL) << result;
  EXPECT_THAT(Kinds(Points(harness)),
              ElementsAre("SEEN open:state.json.tmp", "SEEN write:state.json.tmp",
                          "SEEN fsync:state.json.tmp", "SEEN close:state.json.tmp",
                          "HIT rename:state.json.tmp:state.json"));
  EXPECT_EQ(Points(harness)[1].bytes, static_cast<long long>(std::string(kState).size()));
  EXPECT_FALSE(Exists(Sandbox("state.json")));
}

TEST_F(ShimTest, NothingArmedSendsEveryPointOneWayByExit) {
  REQUIRE_PYTHON();
  extra_env_["KILLPOINT_ARMED"] = "";
  FakeHarness harness([](const Line&) { return Reply::Kill(); });  // a HIT would kill the job
  JobResult result = RunAtomicReplace(&harness);
  ASSERT_EQ(result.exit_code, 0) << result;
  std::vector<std::string> seen;
  for (const auto& name : kAtomicReplaceHits) seen.push_back("SEEN " + name);
  EXPECT_THAT(Kinds(Points(harness)), ElementsAreArray(seen));
  EXPECT_FALSE(harness.killed());
  EXPECT_EQ(ReadFile(Sandbox("state.json")), kState);
}

TEST_F(ShimTest, WaitOpsStillWaitInOrderWithTheOneWayLines) {
  REQUIRE_PYTHON();
  extra_env_["KILLPOINT_ARMED"] = "";
  extra_env_["KILLPOINT_WAIT_OPS"] = "fsync,rename";
  FakeHarness harness;
  JobResult result = RunAtomicReplace(&harness);
  ASSERT_EQ(result.exit_code, 0) << result;
  EXPECT_THAT(Kinds(Points(harness)),
              ElementsAre("SEEN open:state.json.tmp", "SEEN write:state.json.tmp",
                          "HIT fsync:state.json.tmp", "SEEN close:state.json.tmp",
                          "HIT rename:state.json.tmp:state.json", "HIT fsync:.", "SEEN close:."));
}

TEST_F(ShimTest, OneWayLinesOutgrowingTheBufferKeepTheirOrder) {
  REQUIRE_PYTHON();
  extra_env_["KILLPOINT_ARMED"] = "fsync:many.txt";
  FakeHarness harness(At("fsync:many.txt", Reply::Kill()));
  JobResult result = Run({python_, "-c",
                          "import os\n"
                          "fd = os.open('many.txt', os.O_WRONLY | os.O_CREAT, 0o644)\n"
                          "for i in range(5000): os.write(fd, b'x' * (i % 7 + 1))\n"
                          "os.fsync(fd)\n"},
                         &harness);
  EXPECT_EQ(result.term_signal, SIGKILL) << result;
  std::vector<Line> lines = harness.lines();
  ASSERT_EQ(lines.size(), 5002u);  // open, 5000 writes (> 64 KiB of lines), fsync
  EXPECT_EQ(lines.front().name, "open:many.txt");
  for (int i = 0; i < 5000; ++i) {
    ASSERT_EQ(lines[1 + i].kind, "SEEN");
    ASSERT_EQ(lines[1 + i].bytes, i % 7 + 1) << i;
  }
  EXPECT_EQ(lines.back().kind, "HIT");
  size_t written = 0;
  for (int i = 0; i < 5000; ++i) written += i % 7 + 1;
  EXPECT_EQ(ReadFile(Sandbox("many.txt")).size(), written);
}

TEST_F(ShimTest, ForkedChildSendsOnlyItsOwnOneWayLines) {
  extra_env_["KILLPOINT_ARMED"] = "";
  FakeHarness harness;
  JobResult result = RunProbe({"fork"}, &harness);
  ASSERT_EQ(result.exit_code, 0) << result;
  std::vector<Line> lines = harness.lines();
  ASSERT_EQ(lines.size(), 9u);  // not 12: the parent's queued lines are not sent by the child too
  int child = 0;
  for (const Line& l : lines) {
    EXPECT_EQ(l.kind, "SEEN");
    if (l.name == "write:child.txt") child = l.pid;
  }
  ASSERT_NE(child, 0);
  for (const Line& l : lines)
    EXPECT_EQ(l.pid == child, l.name.find("child") != std::string::npos) << l.name;
}

TEST_F(ShimTest, OneWayLinesLeaveBeforeExecReplacesTheProcess) {
  extra_env_["KILLPOINT_ARMED"] = "";
  FakeHarness harness;
  JobResult result = Run({"/bin/sh", "-c", "echo x > a.txt; exec /bin/true"}, &harness);
  ASSERT_EQ(result.exit_code, 0) << result;
  std::vector<std::string> names;
  for (const Line& l : harness.lines()) names.push_back(l.kind + " " + l.name);
  EXPECT_THAT(names, ::testing::IsSupersetOf({"SEEN open:a.txt", "SEEN write:a.txt"}));
}

// ---- The durability journal (KILLPOINT_SHADOW, power model) ----

// A file's syncs go one way, each after a line in the journal and a copy of what it holds in
// the process's data file: whole (F), or only what was appended since the last line (A); a
// truncate makes the next one whole. A directory's sync waits, whatever KILLPOINT_WAIT_OPS says.
TEST_F(ShimTest, UnderTheDurabilityJournalSyncsAreCopiedAndOnlyADirectorysSyncWaits) {
  REQUIRE_PYTHON();
  std::string shadow = root_ + "/durability";
  ASSERT_EQ(::mkdir(shadow.c_str(), 0755), 0);
  extra_env_["KILLPOINT_ARMED"] = "";
  extra_env_["KILLPOINT_WAIT_OPS"] = "rename,unlink";
  extra_env_["KILLPOINT_SHADOW"] = shadow;
  FakeHarness harness;
  JobResult result = Run({python_, "-c",
                          "import os\n"
                          "fd = os.open('log', os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)\n"
                          "os.write(fd, b'abc'); os.fsync(fd)\n"
                          "os.write(fd, b'de'); os.fsync(fd)\n"
                          "os.ftruncate(fd, 1); os.write(fd, b'XY'); os.fsync(fd)\n"
                          "os.close(fd)\n"
                          "d = os.open('.', os.O_RDONLY); os.fsync(d); os.close(d)\n"},
                         &harness);
  ASSERT_EQ(result.exit_code, 0) << result;
  EXPECT_THAT(Kinds(harness.lines()),
              ElementsAre("SEEN open:log", "SEEN write:log", "SEEN fsync:log", "SEEN write:log",
                          "SEEN fsync:log", "SEEN truncate:log", "SEEN write:log", "SEEN fsync:log",
                          "SEEN close:log", "HIT fsync:.", "SEEN close:."));
  struct stat st {};
  ASSERT_EQ(::stat(Sandbox("log").c_str(), &st), 0);
  std::string ino = std::to_string(st.st_ino), pid = std::to_string(harness.lines()[0].pid);
  EXPECT_EQ(ReadFile(shadow + "/journal"), "F " + ino + " " + pid + " 0 3\n" +        //
                                               "A " + ino + " " + pid + " 3 2 3\n" +  //
                                               "F " + ino + " " + pid + " 5 3\n");
  EXPECT_EQ(ReadFile(shadow + "/data-" + pid), "abcdeaXY");
}

// ---- SQLite (through Python's sqlite3 module) ----

TEST_F(ShimTest, SqliteJournalProtocolIsVisible) {
  REQUIRE_PYTHON();
  FakeHarness harness;
  JobResult result = Run({python_, "-c",
                          "import sqlite3\n"
                          "db = sqlite3.connect('t.db')\n"
                          "db.execute('create table t(x)')\n"
                          "db.commit()\n"
                          "db.execute('insert into t values (1)')\n"
                          "db.commit()\n"
                          "db.close()\n"},
                         &harness);
  ASSERT_EQ(result.exit_code, 0) << result;
  std::vector<std::string> hits = harness.hits();
  // The rollback journal's steps, in order: journal written and synced, database written and
  // synced, journal deleted.
  std::vector<std::string> expected = {"open:t.db",  "open:t.db-journal",   "write:t.db-journal",
                                       "write:t.db", "unlink:t.db-journal", "close:t.db"};
  auto at = hits.begin();
  for (const std::string& name : expected) {
    at = std::find(at, hits.end(), name);
    ASSERT_NE(at, hits.end()) << name << " missing or out of order in "
                              << ::testing::PrintToString(hits);
  }
  std::set<std::string> syncs;
  for (const std::string& name : hits) {
    if (name.rfind("fsync:", 0) == 0 || name.rfind("fdatasync:", 0) == 0) {
      syncs.insert(name.substr(name.find(':') + 1));
    }
  }
  EXPECT_TRUE(syncs.count("t.db") && syncs.count("t.db-journal")) << ::testing::PrintToString(hits);
}

}  // namespace
}  // namespace killpoint::shim_testing
