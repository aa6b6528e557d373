// The harness interrupted, end to end, through the real binary and real jobs:
// - SIGINT / SIGTERM to a running `killpoint run`: exit 130 / 143, results.json parses and says
//   it is partial, the finished trials are in it, no process the jobs started is left alive,
//   no temporary folder is left behind;
// - SIGKILL of `killpoint run`: the jobs' processes die with it (the leader by its parent-death
//   signal, the rest by the orphan guard); `--resume` then finishes the run, and its results,
//   journals and counterexample files equal an uninterrupted run's; a second --resume is a
//   no-op; a torn journal tail is repaired, garbage in a journal's middle is refused;
// - a second signal while the first stop is stuck: the harness ends at once, 128 + the second;
// - SIGINT / SIGTERM to `killpoint explore` (between schedules, or while shrinking: the
//   counterexample so far is written, marked partial) and to `killpoint replay`.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cstdlib>
#include <set>
#include <sstream>
#include <thread>

#include "counterexample/counterexample.h"
#include "killpoint_cli.h"
#include "proc/job_cgroup.h"

namespace killpoint::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// A `killpoint run --real-disk` started in the background, with a TMPDIR and KP_TEST_PIDS of its
// own (--real-disk: the sandboxes go in that TMPDIR, not in RAM, so that what is left is seen).
class Harness {
 public:
  // `head`: the subcommand and its first options (explore and replay take --real-disk too).
  Harness(const fs::path& root, std::vector<std::string> args,
          std::vector<std::string> head = {"run", "--real-disk"})
      : root_(root) {
    std::vector<std::string> argv = {KILLPOINT_BIN_DIR "/killpoint"};
    argv.insert(argv.end(), head.begin(), head.end());
    argv.insert(argv.end(), args.begin(), args.end());
    auto p =
        Spawn({argv,
               {{"TMPDIR", (root / "tmp").string()}, {"KP_TEST_PIDS", (root / "pids").string()}},
               KILLPOINT_SOURCE_DIR,
               root / "cli.out",
               root / "cli.err"});
    EXPECT_TRUE(p) << (p ? "" : p.error().message);
    if (p) process_ = std::move(p.value());
  }
  int pid() const { return process_ ? process_->pid() : -1; }
  // Waits for the exit; the shell's code (128 + signal for a signal).
  int Wait() { return process_ ? process_->Wait(std::chrono::minutes(20)).ShellCode() : -1; }
  std::string Err() const { return Slurp(root_ / "cli.err"); }

 private:
  fs::path root_;
  std::unique_ptr<RunningProcess> process_;
};

class Interrupt : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = FreshDir("interrupt-" +
                     std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    for (const char* d : {"pids", "tmp"}) fs::create_directories(root_ / d);
    out_ = root_ / "out";
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(root_);
  }

  // One trial at a time: the job hangs at its Nth start, and the test counts on the trials
  // before it being finished and no other in flight. (Resumed below runs parallel trials.)
  std::vector<std::string> SlowJobArgs() {
    return {
        "tests/fixtures/interrupt/slow-job.json", "--out", out_.string(), "--quiet", "--jobs", "1"};
  }
  void HangAt(int start) { std::ofstream(root_ / "pids" / "hang-at") << start; }
  bool Hanging() const { return fs::exists(root_ / "pids" / "hanging"); }

  // The pids the hanging job recorded (record-pid.sh: NAME-ATTEMPT-PID).
  std::vector<int> RecordedPids() {
    std::vector<int> out;
    for (const auto& e : fs::directory_iterator(root_ / "pids")) {
      std::string name = e.path().filename().string();
      for (const char* prefix : {"leader-", "child-", "setsid-", "escaped-"}) {
        if (name.rfind(prefix, 0) == 0) out.push_back(std::stoi(Slurp(e.path())));
      }
    }
    return out;
  }
  // Alive and ours: its environment holds this test's marker (a reused pid does not).
  bool AliveAndOurs(int pid) {
    std::string env = Slurp("/proc/" + std::to_string(pid) + "/environ");
    return env.find("KP_TEST_PIDS=" + (root_ / "pids").string()) != std::string::npos;
  }
  void ExpectNoJobProcessLeft() {
    std::vector<int> pids = RecordedPids();
    EXPECT_EQ(pids.size(), 4u)
        << "the hanging job records its leader, a child, a setsid'ed child and an env -i one";
    for (int pid : pids) {
      EXPECT_TRUE(Eventually([&] { return !AliveAndOurs(pid); })) << pid << " is still running";
    }
  }
  std::vector<std::string> LeftInTmp() {
    std::vector<std::string> left;
    for (const auto& e : fs::directory_iterator(root_ / "tmp")) left.push_back(e.path().string());
    return left;
  }
  nlohmann::json Results() { return nlohmann::json::parse(Slurp(out_ / "results.json")); }

  // Interrupts the slow job's run with `signal` at its 4th start (trials 0-2 finished).
  void InterruptWith(int signal, int expected_exit, const std::string& partial) {
    HangAt(4);
    Harness h(root_, SlowJobArgs());
    ASSERT_TRUE(Eventually([&] { return Hanging(); })) << h.Err();
    ASSERT_EQ(::kill(h.pid(), signal), 0);
    EXPECT_EQ(h.Wait(), expected_exit) << h.Err();
    EXPECT_THAT(h.Err(), HasSubstr(partial));
    EXPECT_THAT(h.Err(), HasSubstr("--resume"));
    nlohmann::json r = Results();
    EXPECT_EQ(r["partial"], partial);
    EXPECT_EQ(r["trials"], 3) << "the three finished trials, not the one in flight";
    EXPECT_EQ(Lines(Slurp(out_ / "interrupt-slow-job" / "trials.jsonl")).size(), 3u);
    EXPECT_THAT(Slurp(out_ / "summary.md"), HasSubstr("Partial results"));
    EXPECT_THAT(Slurp(out_ / "report.html"), HasSubstr("Partial results"));
    ExpectNoJobProcessLeft();
    EXPECT_THAT(LeftInTmp(), IsEmpty());
    // Resuming finishes it: the three finished trials kept, the other three run.
    fs::remove(root_ / "pids" / "hang-at");
    Harness again(root_, [&] {
      auto a = SlowJobArgs();
      a.push_back("--resume");
      return a;
    }());
    EXPECT_EQ(again.Wait(), 0) << again.Err();
    EXPECT_FALSE(Results().contains("partial"));
    EXPECT_EQ(Results()["trials"], 6);
    EXPECT_EQ(Lines(Slurp(out_ / "interrupt-slow-job" / "trials.jsonl")).size(), 6u);
  }

  fs::path root_, out_;
};

TEST_F(Interrupt, SigintStopsTheRunWritesPartialResultsAndExits130) {
  InterruptWith(SIGINT, 130, "interrupted by SIGINT");
}

TEST_F(Interrupt, SigtermStopsTheRunWritesPartialResultsAndExits143) {
  InterruptWith(SIGTERM, 143, "interrupted by SIGTERM");
}

// Issue 34: two runs into one --out both exited 0 and mixed their trials. The second one, a
// merge or an explore into that folder, exits 2 naming the first, and writes nothing there;
// once the first is killed (kill -9: no cleanup), the lock is free again.
TEST_F(Interrupt, ASecondCommandIntoTheSameOutIsRefusedNamingTheFirst) {
  HangAt(2);
  Harness first(root_, SlowJobArgs());
  ASSERT_TRUE(Eventually([&] { return Hanging(); })) << first.Err();
  std::string results_before = Slurp(out_ / "results.json");
  std::vector<std::string> explore = {
      "explore", "--real-disk", "tests/fixtures/interrupt/slow-job.json", "--out", out_.string()};
  for (const auto& [args, head] :
       {std::pair{SlowJobArgs(), std::vector<std::string>{"run", "--real-disk"}},
        std::pair{std::vector<std::string>{}, explore}}) {
    Harness second(root_, args, head);
    EXPECT_EQ(second.Wait(), 2) << second.Err();
    EXPECT_THAT(second.Err(), HasSubstr(out_.string() + " is being written by killpoint run (pid " +
                                        std::to_string(first.pid())));
    EXPECT_THAT(second.Err(), HasSubstr("give this command another --out"));
  }
  Harness merge(root_, {"--out", out_.string(), out_.string()}, {"merge"});
  EXPECT_EQ(merge.Wait(), 2) << merge.Err();
  EXPECT_THAT(merge.Err(), HasSubstr("is being written by killpoint run"));
  EXPECT_EQ(Slurp(out_ / "results.json"), results_before);
  ASSERT_EQ(::kill(first.pid(), SIGKILL), 0);
  first.Wait();
  fs::remove(root_ / "pids" / "hang-at");
  Harness resumed(root_, [&] {
    auto a = SlowJobArgs();
    a.push_back("--resume");
    return a;
  }());
  EXPECT_EQ(resumed.Wait(), 0) << resumed.Err();
  EXPECT_EQ(Results()["trials"], 6);
}

TEST_F(Interrupt, SigkillOfTheHarnessKillsTheJobsProcessesWithIt) {
  HangAt(2);
  Harness h(root_, SlowJobArgs());
  ASSERT_TRUE(Eventually([&] { return Hanging(); })) << h.Err();
  ASSERT_EQ(RecordedPids().size(), 4u);
  ASSERT_EQ(::kill(h.pid(), SIGKILL), 0);
  EXPECT_EQ(h.Wait(), 128 + SIGKILL);
  // The leader by PR_SET_PDEATHSIG, its child and the setsid'ed one by the orphan guard's tag
  // sweep, the one without an environment by its cgroup. Where no cgroup can be made (not
  // root, no delegated tree) that one is the case docs/hardening.md leaves uncovered.
  if (!JobCgroupsAvailable()) {
    for (const auto& e : fs::directory_iterator(root_ / "pids")) {
      if (e.path().filename().string().rfind("escaped-", 0) == 0)
        ::kill(std::stoi(Slurp(e.path())), SIGKILL);
    }
  }
  ExpectNoJobProcessLeft();
  EXPECT_TRUE(Eventually([&] { return LeftInTmp().empty(); }))
      << "the guard removes the sandboxes too";
  EXPECT_EQ(Results()["partial"], "running") << "results.json of a harness that died says so";
}

// Two real scenarios with violations and counterexamples, as the sharding test runs them.
std::vector<std::string> RealArgs(const fs::path& out, const std::string& seed = "5",
                                  const std::string& trials = "12") {
  return {"scenarios/settle-upsert.json",
          "scenarios/publish-execute-then-mark.json",
          "--trials",
          trials,
          "--seed",
          seed,
          "--out",
          out.string(),
          "--quiet"};
}
const char* const kSlugs[] = {"settle-upsert", "publish-execute-then-mark"};

// An uninterrupted run, and a run SIGKILLed after some trials then resumed: equal.
class Resumed : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = new fs::path(FreshDir("resumed"));
    for (const char* d : {"pids", "tmp"}) fs::create_directories(*root_ / d);
    Harness whole(*root_, RealArgs(*root_ / "whole"));
    whole_exit_ = whole.Wait();
    fs::path out = *root_ / "resumed";
    Harness killed(*root_, RealArgs(out));
    // Killed in the second scenario, a few trials in: the first is complete, the second not.
    Eventually([&] { return Lines(Slurp(out / kSlugs[1] / "trials.jsonl")).size() >= 4; });
    ::kill(killed.pid(), SIGKILL);
    killed_exit_ = killed.Wait();
    killed_trials_ = static_cast<int>(Lines(Slurp(out / kSlugs[1] / "trials.jsonl")).size());
    auto args = RealArgs(out);
    args.push_back("--resume");
    Harness resumed(*root_, args);
    resumed_exit_ = resumed.Wait();
    resumed_err_ = new std::string(resumed.Err());
  }
  static void TearDownTestSuite() { fs::remove_all(*root_); }

  static nlohmann::json ResultsOf(const std::string& run) {
    return nlohmann::json::parse(Slurp(*root_ / run / "results.json"));
  }
  static CliRun Resume(const std::string& run, const std::string& seed = "5",
                       const std::string& trials = "12") {
    auto args = RealArgs(*root_ / run, seed, trials);
    args.push_back("--resume");
    Harness h(*root_, args);
    CliRun r;
    r.exit_code = h.Wait();
    r.err = h.Err();
    r.dir = *root_ / run;
    return r;
  }
  // A copy of the uninterrupted run's folder to damage.
  static fs::path CopyOfWhole(const std::string& name) {
    fs::path copy = *root_ / name;
    fs::remove_all(copy);
    fs::copy(*root_ / "whole", copy, fs::copy_options::recursive);
    return copy;
  }

  static fs::path* root_;
  static int whole_exit_, killed_exit_, killed_trials_, resumed_exit_;
  static std::string* resumed_err_;
};
fs::path* Resumed::root_;
int Resumed::whole_exit_, Resumed::killed_exit_, Resumed::killed_trials_, Resumed::resumed_exit_;
std::string* Resumed::resumed_err_;

TEST_F(Resumed, TheKilledRunWasCutMidScenario) {
  EXPECT_EQ(killed_exit_, 128 + SIGKILL);
  EXPECT_GE(killed_trials_, 4);
  EXPECT_LT(killed_trials_, 12) << "the run finished before the kill: the test shows nothing";
}

TEST_F(Resumed, ResultsEqualAnUninterruptedRun) {
  ASSERT_NE(resumed_exit_, 2) << *resumed_err_;
  EXPECT_EQ(resumed_exit_, whole_exit_) << *resumed_err_;
  nlohmann::json resumed = ComparableResults(ResultsOf("resumed")),
                 whole = ComparableResults(ResultsOf("whole"));
  int examples = 0;
  for (const auto& s : whole["scenarios"]) {
    for (const auto& inv : s["invariants"]) examples += static_cast<int>(inv["examples"].size());
  }
  EXPECT_GT(examples, 0) << "the comparison is worth something only with examples in it";
  EXPECT_EQ(resumed, whole);
}

TEST_F(Resumed, JournalsAndCounterexampleFilesEqualAnUninterruptedRun) {
  size_t counterexamples = 0;
  for (const std::string slug : kSlugs) {
    auto whole = JournalByTrial(*root_ / "whole" / slug / "trials.jsonl");
    EXPECT_EQ(whole.size(), 12u) << slug;
    EXPECT_EQ(JournalByTrial(*root_ / "resumed" / slug / "trials.jsonl"), whole) << slug;
    EXPECT_EQ(HistoryLinesByTrial(*root_ / "resumed" / slug / "history.jsonl"),
              HistoryLinesByTrial(*root_ / "whole" / slug / "history.jsonl"))
        << slug;
    auto files = [&](const std::string& run) {
      std::set<std::string> names;
      fs::path dir = *root_ / run / slug / "counterexamples";
      if (fs::exists(dir)) {
        for (const auto& e : fs::directory_iterator(dir))
          names.insert(e.path().filename().string());
      }
      return names;
    };
    EXPECT_EQ(files("resumed"), files("whole")) << slug;
    counterexamples += files("whole").size();
  }
  EXPECT_GT(counterexamples, 0u);
  for (const char* report : {"report.html", "junit.xml", "summary.md"}) {
    EXPECT_TRUE(fs::exists(*root_ / "resumed" / report)) << report;
  }
}

TEST_F(Resumed, ResumingAFinishedRunIsANoOp) {
  std::string trials = Slurp(*root_ / "resumed" / kSlugs[1] / "trials.jsonl");
  std::string history = Slurp(*root_ / "resumed" / kSlugs[1] / "history.jsonl");
  CliRun again = Resume("resumed");
  EXPECT_EQ(again.exit_code, whole_exit_) << again.err;
  EXPECT_EQ(Slurp(*root_ / "resumed" / kSlugs[1] / "trials.jsonl"), trials);
  EXPECT_EQ(Slurp(*root_ / "resumed" / kSlugs[1] / "history.jsonl"), history);
  EXPECT_EQ(ComparableResults(ResultsOf("resumed")), ComparableResults(ResultsOf("whole")));
}

TEST_F(Resumed, ATornJournalTailIsCutAndTheTrialRunsAgain) {
  fs::path copy = CopyOfWhole("torn");
  fs::path trials = copy / kSlugs[0] / "trials.jsonl", history = copy / kSlugs[0] / "history.jsonl";
  // The last trial's lines as a kill mid-append leaves them: the trials line torn.
  auto lines = Lines(Slurp(trials));
  std::string kept;
  for (size_t i = 0; i + 1 < lines.size(); ++i) kept += lines[i] + "\n";
  std::ofstream(trials, std::ios::trunc) << kept << lines.back().substr(0, lines.back().size() / 2);
  std::ofstream(history, std::ios::app) << "{\"trial\":11,\"ty";
  CliRun r = Resume("torn");
  EXPECT_EQ(r.exit_code, whole_exit_) << r.err;
  EXPECT_EQ(Slurp(trials), Slurp(*root_ / "whole" / kSlugs[0] / "trials.jsonl"));
  EXPECT_EQ(Lines(Slurp(history)).size(),
            Lines(Slurp(*root_ / "whole" / kSlugs[0] / "history.jsonl")).size());
  EXPECT_EQ(ComparableResults(ResultsOf("torn")), ComparableResults(ResultsOf("whole")));
}

// Killed before its second scenario started: that scenario has no folder, and the run no
// results.json. The resume runs the second scenario whole.
TEST_F(Resumed, AScenarioTheKilledRunNeverReachedRunsWhole) {
  fs::path copy = CopyOfWhole("unreached");
  fs::remove_all(copy / kSlugs[1]);
  fs::remove(copy / "results.json");
  CliRun r = Resume("unreached");
  EXPECT_EQ(r.exit_code, whole_exit_) << r.err;
  EXPECT_EQ(JournalByTrial(copy / kSlugs[1] / "trials.jsonl"),
            JournalByTrial(*root_ / "whole" / kSlugs[1] / "trials.jsonl"));
  EXPECT_EQ(ComparableResults(ResultsOf("unreached")), ComparableResults(ResultsOf("whole")));
}

TEST_F(Resumed, GarbageInAJournalsMiddleIsRefusedAndNothingIsOverwritten) {
  fs::path copy = CopyOfWhole("garbage");
  fs::path trials = copy / kSlugs[0] / "trials.jsonl";
  auto lines = Lines(Slurp(trials));
  std::string damaged;
  for (size_t i = 0; i < lines.size(); ++i)
    damaged += (i == 5 ? std::string("garbage") : lines[i]) + "\n";
  std::ofstream(trials, std::ios::trunc) << damaged;
  std::string results = Slurp(copy / "results.json"),
              history = Slurp(copy / kSlugs[0] / "history.jsonl");
  CliRun r = Resume("garbage");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr(trials.string() + ":6: damaged trials journal"));
  EXPECT_EQ(Lines(r.err).size(), 1u) << r.err;
  EXPECT_EQ(Slurp(trials), damaged);
  EXPECT_EQ(Slurp(copy / "results.json"), results);
  EXPECT_EQ(Slurp(copy / kSlugs[0] / "history.jsonl"), history);
}

TEST_F(Resumed, OtherOptionsThanTheInterruptedRunAreRefused) {
  fs::path copy = CopyOfWhole("other-seed");
  std::string results = Slurp(copy / "results.json");
  CliRun r = Resume("other-seed", "6");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(
      r.err,
      HasSubstr("run.json: --resume must run what the interrupted run ran: --seed was 5, now 6"));
  EXPECT_EQ(Slurp(copy / "results.json"), results);
  CliRun trials = Resume("other-seed", "5", "13");
  EXPECT_EQ(trials.exit_code, 2);
  EXPECT_THAT(trials.err, HasSubstr("--trials was 12, now 13"));
}

// Anything in the folder but no run.json: maybe another tool's output, never overwritten.
TEST_F(Resumed, AFolderWithoutARunIsRefused) {
  fs::path other = *root_ / "other";
  fs::create_directories(other);
  std::ofstream(other / "notes.txt") << "not killpoint's\n";
  CliRun r = Resume("other");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("run.json is missing"));
  EXPECT_EQ(Slurp(other / "notes.txt"), "not killpoint's\n");
}

// Killed before it wrote run.json, a run left no folder, or an empty one: --resume starts it.
TEST_F(Resumed, NothingToContinueStartsTheRun) {
  fs::create_directories(*root_ / "empty");
  for (const std::string run : {"missing", "empty"}) {
    CliRun r = Resume(run);
    EXPECT_EQ(r.exit_code, whole_exit_) << run << ": " << r.err;
    EXPECT_EQ(ComparableResults(ResultsOf(run)), ComparableResults(ResultsOf("whole"))) << run;
  }
}

// The property of interruption: a run of three scenarios (with violations and counterexample
// files), SIGKILLed or SIGINTed at random moments and resumed each time, at --jobs 1 or 2, ends
// with the results, journals and counterexample files of an uninterrupted run of the same seed,
// and no process of the run outlives any of the interruptions. RapidCheck draws the workers and
// the interruptions (signal, moment); a failure prints the seed to reproduce it
// (RC_PARAMS="reproduce=..."). Three cases here, every one several real runs:
// RC_PARAMS="max_success=30" for more.
struct Interruption {
  int signal = SIGKILL;
  int after_ms = 0;
};

std::vector<std::string> ThreeScenarioArgs(const fs::path& out, int jobs) {
  return {"scenarios/settle-upsert.json",
          "scenarios/publish-execute-then-mark.json",
          "scenarios/publish-intent-done-query.json",
          "--trials",
          "12",
          "--seed",
          "5",
          "--jobs",
          std::to_string(jobs),
          "--out",
          out.string(),
          "--quiet"};
}
const char* const kThreeSlugs[] = {"settle-upsert", "publish-execute-then-mark",
                                   "publish-intent-done-query"};

// The processes (harness, jobs, guard) whose environment holds `marker`.
std::vector<int> Carrying(const std::string& marker) {
  std::vector<int> pids;
  for (const auto& e : fs::directory_iterator("/proc")) {
    std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    if (Slurp(e.path() / "environ").find(marker) != std::string::npos)
      pids.push_back(std::stoi(name));
  }
  return pids;
}

std::set<std::string> CounterexampleFiles(const fs::path& out, const std::string& slug) {
  std::set<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(out / slug / "counterexamples", ec))
    names.insert(e.path().filename().string());
  return names;
}

TEST(InterruptProperty, ResumedAfterAnyInterruptionsTheRunEqualsAnUninterruptedOne) {
  fs::path root = FreshDir("interrupt-property");
  for (const char* d : {"pids", "tmp"}) fs::create_directories(root / d);
  const std::string marker = "KP_TEST_PIDS=" + (root / "pids").string();
  Harness whole(root, ThreeScenarioArgs(root / "whole", 1));
  const int whole_exit = whole.Wait();
  ASSERT_TRUE(whole_exit == 0 || whole_exit == 1) << whole.Err();
  const nlohmann::json expected =
      ComparableResults(nlohmann::json::parse(Slurp(root / "whole" / "results.json")));
  int run = 0;

  rc::detail::TestParams params = rc::detail::configuration().testParams;
  if (!std::getenv("RC_PARAMS")) params.maxSuccess = 3;
  params.disableShrinking = true;  // each case is seconds of real runs
  rc::detail::TestMetadata meta;
  meta.id = meta.description = "interrupted and resumed runs equal an uninterrupted one";
  auto result = rc::detail::checkTestable(
      [&] {
        const int jobs = *rc::gen::inRange(1, 3);
        const auto cuts = *rc::gen::container<std::vector<Interruption>>(
            *rc::gen::inRange(1, 4),
            rc::gen::build<Interruption>(
                rc::gen::set(&Interruption::signal, rc::gen::element(SIGKILL, SIGINT)),
                rc::gen::set(&Interruption::after_ms, rc::gen::inRange(20, 3000))));
        fs::path out = root / ("run-" + std::to_string(++run));
        for (size_t i = 0; i < cuts.size(); ++i) {
          auto args = ThreeScenarioArgs(out, jobs);
          if (i > 0) args.push_back("--resume");
          Harness h(root, args);
          std::this_thread::sleep_for(std::chrono::milliseconds(cuts[i].after_ms));
          ::kill(h.pid(), cuts[i].signal);
          int code = h.Wait();
          // Killed, stopped (130), or done before the signal (0, 1; a signal during the
          // final report writing still ends it with 130).
          RC_ASSERT(code == 128 + SIGKILL || code == 130 || code == whole_exit);
          RC_ASSERT(Eventually([&] { return Carrying(marker).empty(); }));
        }
        auto args = ThreeScenarioArgs(out, jobs);
        args.push_back("--resume");
        Harness last(root, args);
        RC_ASSERT(last.Wait() == whole_exit);
        RC_ASSERT(ComparableResults(nlohmann::json::parse(Slurp(out / "results.json"))) ==
                  expected);
        for (const std::string slug : kThreeSlugs) {
          RC_ASSERT(JournalByTrial(out / slug / "trials.jsonl") ==
                    JournalByTrial(root / "whole" / slug / "trials.jsonl"));
          RC_ASSERT(HistoryLinesByTrial(out / slug / "history.jsonl") ==
                    HistoryLinesByTrial(root / "whole" / slug / "history.jsonl"));
          RC_ASSERT(CounterexampleFiles(out, slug) == CounterexampleFiles(root / "whole", slug));
        }
        RC_ASSERT(Eventually([&] { return fs::is_empty(root / "tmp"); }));
        fs::remove_all(out);
      },
      meta, params);
  rc::detail::printResultMessage(result, std::cerr);
  std::cerr << "\n";
  EXPECT_TRUE(result.is<rc::detail::SuccessResult>());
  if (!HasFailure()) fs::remove_all(root);
}

}  // namespace
}  // namespace killpoint::testing

namespace killpoint::testing {
namespace {

// Dogfood: killpoint's own results writer (kp-selftest-writer), crashed at every one of its
// crash points under the power and torn models (--exhaustive), loses no announced trial; the
// same writer without its fdatasync does, so the check can fail.
nlohmann::json JournalComplete(const CliRun& r, const std::string& scenario) {
  return Invariant(r.Results(), scenario, "journal_complete");
}

TEST(Dogfood, TheResultsWriterLosesNoFinishedTrialAtAnyCrashPoint) {
  CliRun r = RunKillpoint("dogfood-power", {"run", "scenarios/selftest/results-writer-power.json",
                                            "--exhaustive", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto& s = r.Results()["scenarios"][0];
  EXPECT_GE(s["exhaustive_total"].get<int>(), 100)
      << "every point of two trials' appends, under two models";
  EXPECT_EQ(s["trials"], s["exhaustive_total"]);
  nlohmann::json inv = JournalComplete(r, "selftest/results-writer-power");
  EXPECT_EQ(inv["violated"], 0) << inv.dump(2);
  EXPECT_EQ(inv["held"], s["trials"]);
  EXPECT_GT(s["trials_by_model"]["power"].get<int>(), 0);
  EXPECT_GT(s["trials_by_model"]["torn"].get<int>(), 0);
}

TEST(Dogfood, WithoutItsFsyncTheWriterLosesFinishedTrials) {
  CliRun r = RunKillpoint(
      "dogfood-no-fsync",
      {"run", "scenarios/selftest/results-writer-no-fsync.json", "--exhaustive", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;  // an expected violation does not fail the gate
  nlohmann::json inv = JournalComplete(r, "selftest/results-writer-no-fsync");
  EXPECT_GT(inv["violated"].get<int>(), 0) << inv.dump(2);
  ASSERT_FALSE(inv["examples"].empty());
  EXPECT_THAT(
      inv["examples"][0]["explanation"].get<std::string>(),
      ::testing::HasSubstr("finished trials, 0 of them are in trials.jsonl after the crash"));
}

}  // namespace
}  // namespace killpoint::testing

namespace killpoint::testing {
namespace {

extern "C" char** environ;

// `killpoint run --real-disk ARGS...` whose stderr is a pipe that is full and that nobody
// reads (a log collector that stalled): the harness blocks in the first line it writes there,
// which, with --quiet, is the last line of an interrupted run, after its partial results and
// reports. Its first stop can then never end by itself; only a second signal ends it.
class StuckStderrHarness {
 public:
  StuckStderrHarness(const fs::path& root, const std::vector<std::string>& args) {
    int fds[2];
    EXPECT_EQ(::pipe2(fds, O_CLOEXEC), 0);
    // Filled while non-blocking (O_NONBLOCK belongs to the open pipe, which the child shares:
    // it is cleared again before the spawn, so that the harness's write blocks).
    EXPECT_EQ(::fcntl(fds[1], F_SETFL, O_NONBLOCK), 0);
    std::string chunk(4096, '.');
    while (::write(fds[1], chunk.data(), chunk.size()) > 0) {
    }
    EXPECT_EQ(::fcntl(fds[1], F_SETFL, 0), 0);
    std::vector<std::string> argv = {KILLPOINT_BIN_DIR "/killpoint", "run", "--real-disk"};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e) {
      std::string_view entry(*e);
      if (entry.rfind("TMPDIR=", 0) != 0 && entry.rfind("KP_TEST_PIDS=", 0) != 0)
        env.emplace_back(entry);
    }
    env.push_back("TMPDIR=" + (root / "tmp").string());
    env.push_back("KP_TEST_PIDS=" + (root / "pids").string());
    std::vector<char*> cargv, cenv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    for (auto& e : env) cenv.push_back(e.data());
    cenv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    std::string out = (root / "cli.out").string();
    posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
    posix_spawn_file_actions_addchdir_np(&fa, KILLPOINT_SOURCE_DIR);
    EXPECT_EQ(::posix_spawn(&pid_, cargv[0], &fa, nullptr, cargv.data(), cenv.data()), 0);
    posix_spawn_file_actions_destroy(&fa);
    ::close(fds[1]);
    read_end_ = fds[0];
  }
  ~StuckStderrHarness() {
    if (pid_ > 0 && !reaped_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    ::close(read_end_);
  }
  pid_t pid() const { return pid_; }
  // Its shell code if it exits within kPatience, else -1 (and it is left running).
  int WaitWithin() {
    int status = 0;
    bool exited = Eventually([&] {
      if (reaped_) return true;
      reaped_ = ::waitpid(pid_, &status, WNOHANG) == pid_;
      return reaped_;
    });
    if (!exited) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

 private:
  pid_t pid_ = -1;
  int read_end_ = -1;
  bool reaped_ = false;
};

// Whether a process other than this test carries this test's marker: the harness, its orphan
// guard, or anything a job started.
bool AnyProcessOf(const fs::path& pids) {
  std::string marker = "KP_TEST_PIDS=" + pids.string();
  for (const auto& e : fs::directory_iterator("/proc")) {
    std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    if (std::stoi(name) == ::getpid()) continue;
    std::string env = Slurp(e.path() / "environ");
    for (size_t at = 0; at < env.size();) {
      size_t end = env.find('\0', at);
      if (end == std::string::npos) end = env.size();
      if (env.compare(at, end - at, marker) == 0) return true;
      at = end + 1;
    }
  }
  return false;
}

TEST_F(Interrupt, ASecondSignalEndsTheHarnessAtOnceWhenTheFirstStopIsStuck) {
  HangAt(4);
  StuckStderrHarness h(root_, SlowJobArgs());
  ASSERT_TRUE(Eventually([&] { return Hanging(); }));
  ASSERT_EQ(::kill(h.pid(), SIGINT), 0);
  // The first stop kills the attempt and writes the partial results, then blocks in its last
  // line to stderr: it would never end by itself.
  ASSERT_TRUE(Eventually([&] {
    auto r = nlohmann::json::parse(Slurp(out_ / "results.json"), nullptr, false);
    return r.is_object() && r.value("partial", "") == "interrupted by SIGINT";
  }));
  ASSERT_EQ(::kill(h.pid(), SIGTERM), 0);
  // 143, the second signal's code: the first stop's own exit would be 130.
  EXPECT_EQ(h.WaitWithin(), 143) << "the second signal did not end the harness";
  EXPECT_EQ(Results()["trials"], 3);
  ExpectNoJobProcessLeft();
  EXPECT_TRUE(Eventually([&] { return !AnyProcessOf(root_ / "pids"); }))
      << "a process of this run (the harness, its guard or a job's) is still running";
  EXPECT_TRUE(Eventually([&] { return LeftInTmp().empty(); }));
}

// `killpoint explore` and `killpoint replay` of tests/fixtures/interrupt/failing-job.json, whose
// job fails every start (so every schedule violates converges) and hangs in the trial
// $KP_TEST_PIDS/hang-at-trial names.
class InterruptExplore : public Interrupt {
 protected:
  void HangAtTrial(int n) { std::ofstream(root_ / "pids" / "hang-at-trial") << n; }
  std::vector<std::string> ExploreArgs() {
    return {"tests/fixtures/interrupt/failing-job.json",
            "--seed",
            "3",
            "--out",
            out_.string(),
            "--quiet"};
  }
  fs::path CounterexamplePath() {
    return out_ / "interrupt-failing-job" / "counterexamples" / "explore-converges.json";
  }
  void ExpectNothingLeft() {
    ExpectNoJobProcessLeft();
    EXPECT_TRUE(Eventually([&] { return !AnyProcessOf(root_ / "pids"); }));
    EXPECT_THAT(LeftInTmp(), IsEmpty()) << "a sandbox was left behind";
  }
};

TEST_F(InterruptExplore, SigintWhileSearchingStopsAndExits130WithoutACounterexample) {
  HangAtTrial(1);
  Harness h(root_, ExploreArgs(), {"explore", "--real-disk"});
  ASSERT_TRUE(Eventually([&] { return Hanging(); })) << h.Err();
  ASSERT_EQ(::kill(h.pid(), SIGINT), 0);
  EXPECT_EQ(h.Wait(), 130) << h.Err();
  EXPECT_THAT(h.Err(), HasSubstr("explore interrupted by SIGINT after 0 schedules: no violation"));
  EXPECT_THAT(h.Err(), HasSubstr("search again: killpoint explore"));
  EXPECT_FALSE(fs::exists(CounterexamplePath()));
  ExpectNothingLeft();
}

TEST_F(InterruptExplore, SigtermWhileShrinkingWritesThePartialCounterexampleAndExits143) {
  HangAtTrial(2);  // trial 1 violates: trial 2 is the first shrink step
  Harness h(root_, ExploreArgs(), {"explore", "--real-disk"});
  ASSERT_TRUE(Eventually([&] { return Hanging(); })) << h.Err();
  ASSERT_EQ(::kill(h.pid(), SIGTERM), 0);
  EXPECT_EQ(h.Wait(), 143) << h.Err();
  EXPECT_THAT(
      h.Err(),
      HasSubstr("explore interrupted by SIGTERM while shrinking, after 0 of at most 300 steps"));
  auto c = ReadCounterexample(CounterexamplePath());
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c.value().invariant, "converges");
  EXPECT_THAT(c.value().partial, HasSubstr("interrupted by SIGTERM while shrinking"));
  EXPECT_THAT(c.value().partial, HasSubstr("may not be the smallest"));
  ExpectNothingLeft();
  // It replays (the schedule does violate), and replay says it is partial.
  fs::remove(root_ / "pids" / "hang-at-trial");
  Harness replay(root_, {CounterexamplePath().string()}, {"replay", "--real-disk"});
  EXPECT_EQ(replay.Wait(), 1) << replay.Err();
  EXPECT_THAT(replay.Err(), HasSubstr("note: interrupted by SIGTERM while shrinking"));
}

TEST_F(InterruptExplore, SigintDuringReplayKillsTheAttemptAndExits130) {
  // A whole counterexample first: explore uninterrupted, without shrinking.
  auto args = ExploreArgs();
  args.insert(args.end(), {"--shrink-trials", "0"});
  Harness explore(root_, args, {"explore", "--real-disk"});
  ASSERT_EQ(explore.Wait(), 1) << explore.Err();
  ASSERT_TRUE(fs::exists(CounterexamplePath()));
  int trials_so_far = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(root_ / "pids" / "trials"))
    ++trials_so_far;
  HangAtTrial(trials_so_far + 1);  // the replay's trial
  Harness replay(root_, {CounterexamplePath().string()}, {"replay", "--real-disk"});
  ASSERT_TRUE(Eventually([&] { return Hanging(); })) << replay.Err();
  ASSERT_EQ(::kill(replay.pid(), SIGINT), 0);
  EXPECT_EQ(replay.Wait(), 130) << replay.Err();
  EXPECT_THAT(replay.Err(),
              HasSubstr("replay interrupted by SIGINT: the attempt in flight was killed"));
  ExpectNothingLeft();
}

}  // namespace
}  // namespace killpoint::testing
