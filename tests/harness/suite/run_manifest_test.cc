#include "suite/run_manifest.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "suite/suite.h"
#include "util/atomic_file.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

RunManifest Base() {
  RunManifest m;
  m.killpoint_version = "1";
  m.started_at = "2026-11-29T00:00:00Z";
  m.seed = 5;
  m.trials = 12;
  m.scenarios = {{"a", "a.json", "00ff", "abc"}, {"b", "b.json", "0100", ""}};
  m.intercept = "seccomp";
  return m;
}

std::string Why(const RunManifest& then, const RunManifest& now) {
  Status s = SameTrials(then, now, "OUT/run.json");
  return s ? "" : s.error().message;
}

TEST(RunManifest, TheSameRunIsAccepted) {
  RunManifest now = Base();
  now.started_at = "later";  // when it started is not what it makes
  EXPECT_EQ(Why(Base(), now), "");
}

TEST(RunManifest, EveryDifferenceInWhatTheRunMakesIsNamed) {
  RunManifest m = Base();
  m.seed = 6;
  EXPECT_EQ(Why(Base(), m),
            "OUT/run.json: --resume must run what the interrupted run ran: --seed was 5, now 6");
  m = Base();
  m.trials = 0;
  EXPECT_THAT(Why(Base(), m), HasSubstr("--trials was 12, now the scenarios' own"));
  m = Base();
  m.exhaustive = true;
  EXPECT_THAT(Why(Base(), m), HasSubstr("--exhaustive was off, now on"));
  m = Base();
  m.shard = ShardInfo{1, 3};
  EXPECT_THAT(Why(Base(), m), HasSubstr("--shard was none, now 1/3"));
  m = Base();
  m.scenarios.pop_back();
  EXPECT_THAT(Why(Base(), m), HasSubstr("the scenario set was [a, b], now [a]"));
  m = Base();
  m.scenarios[1].digest = "0101";
  EXPECT_THAT(Why(Base(), m),
              HasSubstr("scenario file b.json was digest 0100, now 0101 (it was edited)"));
  m = Base();
  m.scenarios[0].job_commit = "def";
  EXPECT_THAT(Why(Base(), m), HasSubstr("the job of a was at commit abc, now def"));
  m = Base();
  m.killpoint_version = "2";
  EXPECT_THAT(Why(Base(), m), HasSubstr("the killpoint version was 1, now 2"));
}

// Another backend makes other trials (which calls are points, in which order): refused with
// the option named, as the other options are; a run.json of before the field is not held
// against a resume.
TEST(RunManifest, AnotherInterceptionBackendIsRefusedNamingTheOption) {
  RunManifest m = Base();
  m.intercept = "preload";
  EXPECT_EQ(Why(Base(), m),
            "OUT/run.json: --resume must run what the interrupted run ran: --intercept was "
            "seccomp, now preload");
  m.intercept = "none";
  EXPECT_THAT(Why(Base(), m), HasSubstr("--intercept was seccomp, now none"));
  RunManifest before = Base();
  before.intercept = "";
  EXPECT_EQ(Why(before, Base()), "");
}

// The backend recorded is the one the scenarios' jobs run under: none when no scenario needs
// interception, whatever --intercept said.
TEST(RunManifest, RecordsTheBackendOnlyWhenAScenarioIsIntercepted) {
  Scenario named;
  named.name = "named";
  named.failpoints = {"before_publish"};
  Scenario syscall = named;
  syscall.failpoints = {"write:state.json"};
  Scenario power = named;
  power.models = {PersistenceModel::kProcess, PersistenceModel::kPower};
  Scenario outside = named;
  outside.must_hold = {"writes_in_sandbox"};
  EXPECT_EQ(InterceptionUsed(named, Interception::kSeccomp), "none");
  EXPECT_EQ(InterceptionUsed(syscall, Interception::kSeccomp), "seccomp");
  EXPECT_EQ(InterceptionUsed(power, Interception::kPreload), "preload");
  EXPECT_EQ(InterceptionUsed(outside, Interception::kPreload), "preload");
  EXPECT_EQ(InterceptionUsed(std::vector<Scenario>{named}, Interception::kSeccomp), "none");
  EXPECT_EQ(InterceptionUsed(std::vector<Scenario>{named, power}, Interception::kSeccomp),
            "seccomp");

  fs::path dir = fs::temp_directory_path() / ("kp-manifest-make-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  named.file = dir / "named.json";
  power.file = dir / "power.json";
  std::ofstream(named.file) << "{}";
  std::ofstream(power.file) << "{}";
  SuiteOptions o;
  o.intercept = Interception::kPreload;
  o.bindir = dir;
  auto m = MakeManifest({named, power}, o, "now");
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(m.value().intercept, "preload");
  m = MakeManifest({named}, o, "now");
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(m.value().intercept, "none");
  fs::remove_all(dir);
}

// Issue 34: a resume after the job's script changed mixed two versions of the job in one
// verdict (job_commit is empty outside git). The files the job runs are recorded by digest,
// and a changed one is refused by name; a scenario named by another path is the same.
TEST(RunManifest, AChangedJobFileIsRefusedNamingTheFile) {
  fs::path dir = fs::temp_directory_path() / ("kp-manifest-job-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  Scenario s;
  s.name = "export";
  s.file = dir / "export.json";
  s.job.command = {"python3", "{scenario_dir}/job.py", "--day", "{biz_date}"};
  s.job.setup = {"{scenario_dir}/setup.sh"};
  std::ofstream(s.file) << "{}";
  std::ofstream(dir / "job.py") << "print('v1')\n";
  std::ofstream(dir / "setup.sh") << "true\n";
  SuiteOptions o;
  o.bindir = dir;
  auto then = MakeManifest({s}, o, "then");
  ASSERT_TRUE(then) << then.error().message;
  const auto& files = then.value().scenarios[0].job_files;
  std::string job = (dir / "job.py").string();
  EXPECT_TRUE(files.count(job)) << ::testing::PrintToString(files);
  EXPECT_TRUE(files.count((dir / "setup.sh").string()));
  EXPECT_EQ(files.size(), 3u) << "python3 found on PATH, the script, the setup";
  EXPECT_EQ(Why(then.value(), then.value()), "");
  std::ofstream(dir / "job.py", std::ios::trunc) << "print('version 2')\n";  // a new size
  auto changed = MakeManifest({s}, o, "now");
  ASSERT_TRUE(changed) << changed.error().message;
  EXPECT_THAT(
      Why(then.value(), changed.value()),
      HasSubstr("the job file " + job + " of export was digest " + files.at(job) + ", now " +
                changed.value().scenarios[0].job_files.at(job) + " (it was changed)"));
  // The same scenario by a relative path with a detour: not another scenario set.
  RunManifest relative = then.value();
  relative.scenarios[0].file = fs::relative(dir, fs::current_path()).string() + "/../" +
                               dir.filename().string() + "/export.json";
  EXPECT_EQ(Why(relative, then.value()), "");
  // Recorded in run.json, and a run.json of before the field is not held against a resume.
  ASSERT_TRUE(WriteManifest(dir, then.value()));
  auto read = ReadManifest(dir);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read.value().scenarios[0].job_files, files);
  RunManifest old = then.value();
  old.scenarios[0].job_files.clear();
  EXPECT_EQ(Why(old, changed.value()), "");
  fs::remove_all(dir);
}

TEST(RunManifest, RoundTripsThroughItsFileAndMissingOrDamagedIsBadInput) {
  fs::path dir = fs::temp_directory_path() / ("kp-manifest-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto missing = ReadManifest(dir);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, ErrorKind::kBadInput);
  EXPECT_THAT(missing.error().message, HasSubstr("run.json is missing"));
  RunManifest m = Base();
  m.shard = ShardInfo{0, 2};
  m.trial = 4;
  ASSERT_TRUE(WriteManifest(dir, m));
  auto read = ReadManifest(dir);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(Why(m, read.value()), "");
  EXPECT_EQ(read.value().started_at, m.started_at);
  EXPECT_EQ(read.value().intercept, "seccomp");
  EXPECT_EQ(nlohmann::json::parse(ReadFile(dir / "run.json").value())["intercept"], "seccomp");
  // A run.json of before the field: read as unknown.
  nlohmann::json old = nlohmann::json::parse(ReadFile(dir / "run.json").value());
  old.erase("intercept");
  std::ofstream(dir / "run.json", std::ios::trunc) << old.dump();
  auto before = ReadManifest(dir);
  ASSERT_TRUE(before) << before.error().message;
  EXPECT_EQ(before.value().intercept, "");
  std::ofstream(dir / "run.json", std::ios::trunc) << "{\"format\": \"killpoint-run/1\"";
  auto damaged = ReadManifest(dir);
  ASSERT_FALSE(damaged);
  EXPECT_THAT(damaged.error().message, HasSubstr("run.json: damaged run manifest"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace killpoint
