// Issue 17, "never a silent pass": the real binary runs a real job whose planned kills never
// fire, and must not report it as a pass; a counterexample lists only the kills that fired and
// replays to the same history.
#include <gtest/gtest.h>

#include "tests/e2e/killpoint_cli.h"

namespace killpoint {
namespace {

using testing::RunKillpoint;
using testing::Slurp;

const char* kFixtures = KILLPOINT_SOURCE_DIR "/tests/fixtures/exercise/";

// A job that passes no crash point the scenario names: sampled or exhaustive, nothing was tried,
// and the run says so (exit 4), never "0 trials ... held".
TEST(Exercise, AJobWithNoCrashPointIsNotExercisedSampledOrExhaustive) {
  for (const char* mode : {"sampled", "exhaustive"}) {
    std::vector<std::string> args = {"run", std::string(kFixtures) + "no-points.json"};
    if (std::string(mode) == "exhaustive") args.push_back("--exhaustive");
    auto run = RunKillpoint(std::string("no-points-") + mode, args);
    ASSERT_EQ(run.exit_code, 4) << mode << run.out << run.err;
    EXPECT_NE(run.out.find("passed no crash point"), std::string::npos) << mode << run.out;
    EXPECT_EQ(run.Results()["scenarios"][0]["exercise"]["no_points"], true) << mode;
  }
}

TEST(Exercise, APlannedKillThatNeverFiresIsNotReportedAsAPass) {
  auto run = RunKillpoint("never-reached", {"run", std::string(kFixtures) + "never-reached.json",
                                            "--seed", "3", "--jobs", "2"});
  ASSERT_EQ(run.exit_code, 4) << run.out << run.err;
  EXPECT_NE(run.out.find("NOT EXERCISED"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("never reached: open:tmpk3x9q1ab"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("every must-hold invariant held"), std::string::npos) << run.out;
  const auto& s = run.Results()["scenarios"][0];
  EXPECT_EQ(run.Results()["not_exercised"], true);
  EXPECT_EQ(s["not_exercised"], true);
  EXPECT_EQ(s["exercise"]["never_reached"], nlohmann::json({"open:tmpk3x9q1ab"}));
  EXPECT_GT(s["exercise"]["kills_unfired"].get<int>(), 0);
  EXPECT_LT(s["exercise"]["trials_all_fired"].get<int>(),
            s["exercise"]["trials_with_kill"].get<int>());
  EXPECT_EQ(s["exercise"]["points"]["py_before_mark"]["fired"],
            s["exercise"]["points"]["py_before_mark"]["planned"]);
  // The models trials ran under are those a fired kill applied, not the scenario's list.
  for (const auto& m : s["models_run"])
    EXPECT_EQ(s["exercise"]["models"].count(m.get<std::string>()), 1u) << m;
  // Every report says it: JUnit as a failure, Markdown and HTML by name.
  std::string junit = Slurp(run.dir / "junit.xml");
  EXPECT_NE(junit.find("type=\"not_exercised\""), std::string::npos) << junit;
  EXPECT_NE(junit.find("failures=\"1\""), std::string::npos) << junit;
  EXPECT_NE(Slurp(run.dir / "summary.md").find("NOT EXERCISED"), std::string::npos);
  EXPECT_NE(Slurp(run.dir / "report.html").find("NOT EXERCISED"), std::string::npos);
  // `killpoint report` reads the counts back and gives the same verdict.
  auto report = RunKillpoint("never-reached-report", {"report", run.dir.string(), "--junit",
                                                      (run.dir / "j2.xml").string()});
  EXPECT_EQ(report.exit_code, 4) << report.out << report.err;
}

TEST(Exercise, ACounterexampleListsOnlyTheKillsThatFiredAndReplaysTheSame) {
  auto run = RunKillpoint("trimmed", {"run", std::string(kFixtures) + "trimmed-counterexample.json",
                                      "--seed", "1", "--jobs", "2"});
  // min_exercised 0: the gate leaves it be, the report still names what never fired.
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const auto& s = run.Results()["scenarios"][0];
  EXPECT_EQ(s["exercise"]["never_reached"], nlohmann::json({"py_never_here"}));
  EXPECT_NE(run.out.find("note: "), std::string::npos) << run.out;
  // The counterexamples of trials whose plan had a kill that never fired.
  auto trials =
      testing::JournalByTrial(run.dir / "fixture-trimmed-counterexample" / "trials.jsonl");
  int trimmed = 0;
  for (const auto& example : s["invariants"][1]["examples"]) {
    nlohmann::json line = nlohmann::json::parse(trials.at(example["trial"].get<int>()).front());
    bool unfired = false;
    for (const auto& k : line["exercise"]["kills"]) unfired = unfired || !k["fired"].get<bool>();
    if (!unfired) continue;
    ++trimmed;
    std::string file = example["file"];
    nlohmann::json c = nlohmann::json::parse(Slurp(file));
    EXPECT_EQ(c["plan"].dump().find("py_never_here"), std::string::npos) << file;
    EXPECT_EQ(c["summary"].get<std::string>().find("py_never_here"), std::string::npos) << file;
    EXPECT_EQ(c["events"].dump().find("py_never_here"), std::string::npos) << file;
    EXPECT_NE(line.dump().find("py_never_here"), std::string::npos);
    auto replay = RunKillpoint("trimmed-replay", {"replay", file});
    EXPECT_EQ(replay.exit_code, 1) << replay.out << replay.err;
    EXPECT_NE(replay.out.find("history: the same events in the same order"), std::string::npos)
        << replay.out;
  }
  EXPECT_GT(trimmed, 0) << "no example had a kill that never fired: pick another seed";
}

}  // namespace
}  // namespace killpoint
