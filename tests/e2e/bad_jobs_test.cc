// Bad jobs end to end: `killpoint run` on jobs that are missing, not executable, fail at once,
// hang ignoring SIGTERM, leave processes behind (in their group, after setsid, as a daemon),
// flood their output or write without end. Each gives a clear per-trial outcome, the run ends,
// no process any job started is left alive, and no temporary directory is left behind.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "history/event_registry.h"
#include "history/history.h"
#include "history/history_log.h"
#include "killpoint_cli.h"

namespace killpoint::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class BadJob : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = FreshDir("bad-jobs");
    pids_ = root_ / "pids";
    tmp_ = root_ / "tmp";
    fs::create_directories(pids_);
    fs::create_directories(tmp_);
  }
  void TearDown() override { fs::remove_all(root_); }

  // `killpoint run tests/fixtures/bad-jobs/NAME.json --real-disk ARGS...` with TMPDIR and
  // KP_TEST_PIDS of this test's own, so that what the run leaves behind can be seen (--real-disk:
  // the sandboxes go in TMPDIR, not in RAM).
  CliRun Run(const std::string& name, std::vector<std::string> args = {}) {
    CliRun r;
    r.dir = root_ / "out";
    std::vector<std::string> argv = {KILLPOINT_BIN_DIR "/killpoint",
                                     "run",
                                     "tests/fixtures/bad-jobs/" + name + ".json",
                                     "--out",
                                     r.dir.string(),
                                     "--real-disk"};
    argv.insert(argv.end(), args.begin(), args.end());
    auto p = Spawn({argv,
                    {{"TMPDIR", tmp_.string()}, {"KP_TEST_PIDS", pids_.string()}},
                    KILLPOINT_SOURCE_DIR,
                    root_ / "cli.out",
                    root_ / "cli.err"});
    if (!p) {
      r.err = p.error().message;
      return r;
    }
    r.exit_code = p.value()->Wait(std::chrono::minutes(20)).ShellCode();
    r.out = Slurp(root_ / "cli.out");
    r.err = Slurp(root_ / "cli.err");
    return r;
  }

  std::vector<Event> Events(const CliRun& r, const std::string& slug) {
    auto log = ReadHistoryLog(r.dir / slug / "history.jsonl");
    EXPECT_TRUE(log) << (log ? "" : log.error().message);
    if (!log || log.value().empty()) return {};
    return log.value().begin()->second;
  }

  // The pids the jobs recorded, by file name ("child-1-4242" -> 4242).
  std::vector<int> RecordedPids(const std::string& prefix) {
    std::vector<int> out;
    for (const auto& e : fs::directory_iterator(pids_)) {
      std::string name = e.path().filename().string();
      if (name.rfind(prefix + "-", 0) == 0) out.push_back(std::stoi(Slurp(e.path())));
    }
    return out;
  }

  // Alive and one of ours: its environment still holds this test's marker. A dead process
  // reads as an empty environment (a zombie) or not at all (reaped).
  bool AliveAndOurs(int pid) {
    std::string env = Slurp("/proc/" + std::to_string(pid) + "/environ");
    return env.find("KP_TEST_PIDS=" + pids_.string()) != std::string::npos;
  }

  void ExpectAllGone(const std::string& prefix, size_t at_least) {
    std::vector<int> pids = RecordedPids(prefix);
    EXPECT_GE(pids.size(), at_least) << prefix;
    for (int pid : pids)
      EXPECT_FALSE(AliveAndOurs(pid)) << prefix << " " << pid << " is still running";
  }

  void ExpectNoTemporaryDirectoryLeft() {
    std::vector<std::string> left;
    for (const auto& e : fs::directory_iterator(tmp_)) left.push_back(e.path().string());
    EXPECT_THAT(left, ::testing::IsEmpty());
  }

  fs::path root_, pids_, tmp_;
};

TEST_F(BadJob, AMissingProgramIsABadScenario) {
  CliRun r = Run("../missing-job");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("job.command: job program '"));
  EXPECT_THAT(r.err, HasSubstr("kp-no-such-job' is missing or not executable"));
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  ExpectNoTemporaryDirectoryLeft();
}

TEST_F(BadJob, AProgramThatIsNotExecutableIsABadScenario) {
  // Mode 0644: not executable, even for root.
  ASSERT_NE(::access(KILLPOINT_SOURCE_DIR "/tests/fixtures/bad-jobs/jobs/not-executable.sh", X_OK),
            0);
  CliRun r = Run("not-executable");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("not-executable.json: job.command: job program '"));
  EXPECT_THAT(r.err, HasSubstr("not-executable.sh' is missing or not executable"));
  ExpectNoTemporaryDirectoryLeft();
}

// A job that fails the same way before any crash point never ran: no verdict, exit 2, its
// stderr shown (history/start_failure.h). Its retries and final pass still ran.
TEST_F(BadJob, AJobThatFailsAtOnceNeverRanAndExitsTwo) {
  CliRun r = Run("exits-at-once");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  auto exits = OfType(Events(r, "bad-jobs-exits-at-once"), event::Exit::kType);
  ASSERT_EQ(exits.size(), 4u);  // two attempts, then two in the final pass
  for (const auto& e : exits) EXPECT_EQ(e.data["code"], 3);
  nlohmann::json results = r.Results();
  EXPECT_TRUE(results["never_ran"].get<bool>());
  EXPECT_TRUE(results["scenarios"][0]["never_ran"].get<bool>());
  nlohmann::json i = Invariant(results, "bad-jobs/exits-at-once", "converges");
  EXPECT_EQ(i["status"], "NOT EXERCISED");
  EXPECT_THAT(r.out, HasSubstr("JOB NEVER RAN: every attempt of its trial "
                               "exited with code 3"));
  ExpectNoTemporaryDirectoryLeft();
}

TEST_F(BadJob, APythonScriptThatIsNotThereNeverRanAndItsStderrIsShown) {
  CliRun r = Run("python-missing-script");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("  JOB NEVER RAN: every attempt of its trial exited with code 2"));
  EXPECT_THAT(r.Results()["scenarios"][0]["never_ran_explanation"].get<std::string>(),
              HasSubstr("exited with code 2 before reaching any crash point"));
  EXPECT_THAT(r.out, HasSubstr("    | /usr/bin/python3: can't open file '"));
  EXPECT_THAT(r.out, HasSubstr("no_such_file.py': [Errno 2] No such file or directory\n"));
  EXPECT_THAT(r.out, Not(HasSubstr("VIOLATED")));
  EXPECT_THAT(Slurp(r.dir / "summary.md"), HasSubstr("### Jobs that never ran (no verdict)"));
  EXPECT_THAT(Slurp(r.dir / "junit.xml"), HasSubstr("type=\"never_ran\""));
  EXPECT_THAT(Slurp(r.dir / "report.html"), HasSubstr("<b>JOB NEVER RAN</b>"));
}

// `explore` says so too, after a few schedules, instead of shrinking a converges
// "counterexample" of a command that never started.
TEST_F(BadJob, ExploreOnAJobThatNeverRanSaysSoAndExitsTwo) {
  auto p = Spawn({{KILLPOINT_BIN_DIR "/killpoint", "explore",
                   "tests/fixtures/bad-jobs/python-missing-script.json", "--out",
                   (root_ / "explore").string(), "--real-disk"},
                  {{"TMPDIR", tmp_.string()}},
                  KILLPOINT_SOURCE_DIR,
                  root_ / "cli.out",
                  root_ / "cli.err"});
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p.value()->Wait(std::chrono::minutes(5)).ShellCode(), 2);
  std::string out = Slurp(root_ / "cli.out"), err = Slurp(root_ / "cli.err");
  EXPECT_THAT(err, HasSubstr("the job never ran: every attempt of its 3 trials exited with code 2"))
      << out << err;
  EXPECT_THAT(err, HasSubstr("no_such_file.py': [Errno 2] No such file or directory"));
  EXPECT_THAT(out + err, Not(HasSubstr("converges")));
  EXPECT_FALSE(fs::exists(root_ / "explore" / "bad-jobs-python-missing-script"));
  ExpectNoTemporaryDirectoryLeft();
}

TEST_F(BadJob, AScriptPathRelativeToTheScenarioNeverRan) {
  CliRun r = Run("relative-script-path");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_THAT(r.Results()["scenarios"][0]["never_ran_explanation"].get<std::string>(),
              HasSubstr("a relative path is looked up in the sandbox"));
  EXPECT_THAT(r.out, HasSubstr("jobs/exits-at-once.sh"));  // sh's own message, in the stderr
}

// Issue 33: the same with a job.setup that ran and wrote the sandbox under the interception:
// the setup's crash points are not the job's, and the job still never ran (exit 2), not
// "converges VIOLATED".
TEST_F(BadJob, ASetupThatRanDoesNotHideAJobThatNeverRan) {
  CliRun r = Run("relative-script-path-with-setup");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(r.Results()["scenarios"][0]["never_ran"].get<bool>());
  EXPECT_THAT(r.out, Not(HasSubstr("VIOLATED")));
}

TEST_F(BadJob, AHungJobIgnoringSigtermIsKilledAtItsTimeout) {
  CliRun r = Run("hangs-ignoring-term");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto events = Events(r, "bad-jobs-hangs-ignoring-term");
  EXPECT_EQ(OfType(events, event::Timeout::kType).size(), 2u);
  for (const auto& e : OfType(events, event::Exit::kType)) {
    EXPECT_EQ(e.data["signal"], 9);
    EXPECT_EQ(e.data["killed_by_harness"], true);
  }
  ExpectAllGone("hang", 1);
  ExpectNoTemporaryDirectoryLeft();
}

TEST_F(BadJob, NothingAJobLeftBehindOutlivesItsAttempt) {
  CliRun r = Run("leaves-children");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(Invariant(r.Results(), "bad-jobs/leaves-children", "converges")["status"], "held");
  // One attempt, leaving seven processes behind, each escaping another way.
  for (const char* escape :
       {"child", "setsid", "nohup", "regrouped", "daemon", "closed", "escaped"})
    ExpectAllGone(escape, 1);
  // The stderr tail of each attempt says what was killed after it.
  for (const auto& e : OfType(Events(r, "bad-jobs-leaves-children"), event::Exit::kType)) {
    EXPECT_EQ(e.data["code"], 0);
    EXPECT_THAT(e.data["stderr"].get<std::string>(),
                HasSubstr("left running outside its process group"));
  }
  ExpectNoTemporaryDirectoryLeft();
}

TEST_F(BadJob, AFloodOfOutputIsCappedAndTheCutIsMarked) {
  fs::path boxes = root_ / "boxes";
  CliRun r = Run("floods-output", {"--keep", "--sandbox-root", boxes.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto exits = OfType(Events(r, "bad-jobs-floods-output"), event::Exit::kType);
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_THAT(
      exits[0].data["stderr"].get<std::string>(),
      HasSubstr("[killpoint: stderr truncated: kept the first 8388608 bytes, dropped 11611392]"));
  int logs = 0;
  for (const auto& e : fs::recursive_directory_iterator(boxes)) {
    std::string ext = e.path().extension().string();
    if (ext != ".out" && ext != ".err") continue;
    ++logs;
    EXPECT_LT(fs::file_size(e.path()), (8u << 20) + 200) << e.path();
    std::string tail = Slurp(e.path()).substr((8u << 20));
    EXPECT_THAT(tail, HasSubstr(ext == ".out" ? "stdout truncated" : "stderr truncated"));
  }
  EXPECT_EQ(logs, 2);
}

TEST_F(BadJob, AJobWritingWithoutEndIsStoppedByTheFileSizeLimit) {
  CliRun r = Run("writes-gigabytes");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto exits = OfType(Events(r, "bad-jobs-writes-gigabytes"), event::Exit::kType);
  ASSERT_EQ(exits.size(), 2u);  // the attempt and the final pass
  for (const auto& e : exits) {
    EXPECT_EQ(e.data["signal"], SIGXFSZ);
    EXPECT_EQ(e.data["killed_by_harness"], false);
    EXPECT_THAT(
        e.data["stderr"].get<std::string>(),
        HasSubstr("killed by SIGXFSZ: a file reached the sandbox's size limit of 1048576 bytes"));
  }
  nlohmann::json i = Invariant(r.Results(), "bad-jobs/writes-gigabytes", "converges");
  EXPECT_EQ(i["status"], "expected, shown");
  EXPECT_THAT(i["examples"][0]["explanation"].get<std::string>(), HasSubstr("153"));
  ExpectNoTemporaryDirectoryLeft();
}

// Issue 34: a symlink loop at check.db and a FIFO at the state file made the checks throw
// (exit 134, the sandbox left behind) or could block on the FIFO.
TEST_F(BadJob, ASandboxLeftWithASymlinkLoopAndAFifoIsJudgedNotAborted) {
  CliRun r = Run("damages-its-sandbox");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  nlohmann::json i = Invariant(r.Results(), "bad-jobs/damages-its-sandbox", "state_readable");
  EXPECT_EQ(i["status"], "VIOLATED");
  EXPECT_THAT(i["examples"][0]["explanation"].get<std::string>(),
              HasSubstr("state.json: it is a FIFO, not a regular file"));
  ExpectNoTemporaryDirectoryLeft();
}

// Issue 34: the retry of a job that deleted its sandbox ran in killpoint's own folder.
TEST_F(BadJob, ARetryWhoseSandboxWasDeletedFailsAndNeverRunsElsewhere) {
  fs::remove(fs::path(KILLPOINT_SOURCE_DIR) / "retry-was-here");
  CliRun r = Run("deletes-its-sandbox");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  auto exits = OfType(Events(r, "bad-jobs-deletes-its-sandbox"), event::Exit::kType);
  ASSERT_GE(exits.size(), 2u);
  EXPECT_EQ(exits[0].data["code"], 1);
  for (size_t n = 1; n < exits.size(); ++n) {
    EXPECT_EQ(exits[n].data["code"], 127);
    EXPECT_THAT(exits[n].data["stderr"].get<std::string>(),
                HasSubstr("cannot enter the job's working folder"));
  }
  EXPECT_FALSE(fs::exists(fs::path(KILLPOINT_SOURCE_DIR) / "retry-was-here"));
  ExpectNoTemporaryDirectoryLeft();
}

TEST_F(BadJob, KeepLeavesTheSandboxesAndOnlyThem) {
  CliRun r = Run("exits-at-once", {"--keep"});
  EXPECT_EQ(r.exit_code, 2) << r.err;  // the job never ran
  size_t left = std::distance(fs::directory_iterator(tmp_), fs::directory_iterator());
  EXPECT_EQ(left, 1u);  // the run's sandbox folder, kept on request
}

}  // namespace
}  // namespace killpoint::testing
