#include "results/results.h"

#include <gtest/gtest.h>

namespace killpoint {
namespace {

using enum PersistenceModel;

Plan PlanWithKill(int trial, const std::string& point) {
  Plan p{"s", 1, trial, {{"2026-11-01", 1, {{point, 1, "", kProcess}}}}};
  return p;
}

ScenarioResult Empty() {
  ScenarioResult r;
  r.name = "s";
  r.invariants = {{"no_loss", kMustHold, 0, 0, {}, {}},
                  {"no_double_publish", kExpectedViolation, 0, 0, {}, {}}};
  return r;
}

TEST(ScenarioResult, CountsVerdictsAndKeepsTheFirstExamples) {
  ScenarioResult r = Empty();
  for (int t = 0; t < 5; ++t) {
    r.Add(PlanWithKill(t, "after_publish"),
          {Verdict::Held("no_loss"), Verdict::Violated("no_double_publish", "twice")},
          "replay " + std::to_string(t));
  }
  EXPECT_EQ(r.trials, 5);
  EXPECT_EQ(r.invariants[0].Status(), InvariantStatus::kHeld);
  EXPECT_EQ(r.invariants[1].Status(), InvariantStatus::kShown);
  EXPECT_EQ(r.invariants[1].violated, 5);
  EXPECT_EQ(r.invariants[1].examples.size(), 3u);
  EXPECT_EQ(r.invariants[1].examples[0].replay, "replay 0");
  EXPECT_EQ(r.points.at("after_publish").violations, 5);
  EXPECT_FALSE(r.MustHoldViolated());
}

TEST(ScenarioResult, AMustHoldViolationFailsAndAnUnshownExpectationIsSaidSo) {
  ScenarioResult r = Empty();
  r.Add(PlanWithKill(0, "before_publish"),
        {Verdict::Violated("no_loss", "lost"), Verdict::Held("no_double_publish")}, "");
  EXPECT_EQ(r.invariants[0].Status(), InvariantStatus::kViolated);
  EXPECT_EQ(r.invariants[1].Status(), InvariantStatus::kNotDemonstrated);
  EXPECT_TRUE(r.MustHoldViolated());
}

TEST(RunResults, RoundTripsThroughJsonAndRejectsOtherFormats) {
  RunResults r;
  r.killpoint_version = "0.1.0";
  r.seed = 42;
  r.started_at = "2026-11-29T00:00:00Z";
  ScenarioResult s = Empty();
  s.Add(PlanWithKill(0, "x"), {Verdict::Violated("no_loss", "lost")}, "replay");
  r.scenarios.push_back(s);
  nlohmann::json j = r;
  EXPECT_EQ(j["trials"], 1);
  EXPECT_EQ(nlohmann::json::parse(j.dump()).get<RunResults>(), r);
  j["format"] = "something-else/9";
  EXPECT_THROW(j.get<RunResults>(), nlohmann::json::exception);
}

}  // namespace
}  // namespace killpoint

namespace killpoint {
namespace {

TEST(ScenarioResult, SaysUnderWhichModelEachViolationHappened) {
  ScenarioResult r = Empty();
  Plan power{"s", 1, 0, {{"2026-11-01", 1, {{"after_publish", 1, "", kPower}}}}};
  r.Add(power, {Verdict::Violated("no_double_publish", "2026-11-01 was published 2 times")}, "");
  r.Add(PlanWithKill(1, "after_publish"), {Verdict::Violated("no_double_publish", "again")}, "");
  const InvariantResult& i = r.invariants[1];
  EXPECT_EQ(i.violated_by_model, (std::map<std::string, int>{{"power", 1}, {"process", 1}}));
  EXPECT_EQ(i.examples[0].explanation, "2026-11-01 was published 2 times (under the power model)");
  EXPECT_EQ(r.ByModel(i), "power 1/1, process 1/1");
  EXPECT_EQ(r.ByModel(r.invariants[0]), "power 0/1, process 0/1");
}

}  // namespace
}  // namespace killpoint

namespace killpoint {
namespace {

TEST(ScenarioResult, CountsEachInvariantPerCrashPointForTheHeatMap) {
  ScenarioResult r = Empty();
  r.Add(PlanWithKill(0, "after_publish"),
        {Verdict::Held("no_loss"), Verdict::Violated("no_double_publish", "x")}, "");
  r.Add(PlanWithKill(1, "after_publish"),
        {Verdict::Violated("no_loss", "y"), Verdict::Violated("no_double_publish", "x")}, "");
  r.Add(PlanWithKill(2, "after_publish"), {Verdict::Violated("not_listed", "z")}, "");
  const PointStat& p = r.points.at("after_publish");
  EXPECT_EQ(p.trials, 3);
  EXPECT_EQ(p.violations, 2);  // an invariant the scenario does not list is not counted
  EXPECT_EQ(p.by_invariant, (std::map<std::string, int>{{"no_double_publish", 2}, {"no_loss", 1}}));
}

TEST(RunResults, ResultsWrittenBeforeTheHeatMapAndMetadataFieldsStillLoad) {
  RunResults r;
  ScenarioResult s = Empty();
  s.Add(PlanWithKill(0, "x"), {Verdict::Violated("no_loss", "lost")}, "replay");
  s.models = {kProcess, kPower};
  s.job_commit = "abc-dirty";
  r.scenarios.push_back(s);
  nlohmann::json j = r;
  EXPECT_EQ(j["scenarios"][0]["models"], nlohmann::json({"process", "power"}));
  EXPECT_EQ(j["scenarios"][0]["job_commit"], "abc-dirty");
  j["scenarios"][0].erase("models");
  j["scenarios"][0].erase("job_commit");
  j["scenarios"][0]["points"]["x"].erase("by_invariant");
  RunResults old = j.get<RunResults>();
  EXPECT_TRUE(old.scenarios[0].models.empty());
  EXPECT_EQ(old.scenarios[0].job_commit, "");
  EXPECT_TRUE(old.scenarios[0].points.at("x").by_invariant.empty());
  EXPECT_EQ(old.scenarios[0].points.at("x").violations, 1);
}

TEST(Counterexample, ReplayCommandsAddTheFileWhenOneWasSaved) {
  Counterexample c{3, 1, "plan", "why", "killpoint run x.json --seed 1 --trial 3 --keep", "", ""};
  EXPECT_EQ(c.ReplayCommands(), "killpoint run x.json --seed 1 --trial 3 --keep");
  c.file = "out/x/counterexamples/trial-3-no_loss.json";
  EXPECT_EQ(c.ReplayCommands(),
            "killpoint run x.json --seed 1 --trial 3 --keep\nkillpoint replay "
            "out/x/counterexamples/trial-3-no_loss.json");
  nlohmann::json old = c;
  old.erase("file");  // results.json written before the field existed
  EXPECT_EQ(old.get<Counterexample>().file, "");
}

}  // namespace
}  // namespace killpoint

// Issue 17: no result reads "held" for a kill that never happened.
namespace killpoint {
namespace {

TrialExercise Fired(std::vector<PlannedKill> kills) { return {std::move(kills), 0, 0, true}; }

TEST(ScenarioResult, APlannedPointThatNeverFiredMakesTheScenarioNotExercised) {
  ScenarioResult r = Empty();
  for (int t = 0; t < 4; ++t) {
    r.Add(PlanWithKill(t, "open:tmpk3x9q1ab"),
          {Verdict::Held("no_loss"), Verdict::Held("no_double_publish")}, "",
          Fired({{"open:tmpk3x9q1ab", kPower, false}}));
  }
  EXPECT_FALSE(r.MustHoldViolated());
  EXPECT_TRUE(r.NotExercised());
  EXPECT_EQ(r.exercise.trials_with_kill, 4);
  EXPECT_EQ(r.exercise.trials_all_fired, 0);
  EXPECT_EQ(r.exercise.kills_unfired, 4);
  EXPECT_EQ(r.exercise.NeverReached(), std::vector<std::string>{"open:tmpk3x9q1ab"});
  EXPECT_EQ(r.invariants[0].Status(), InvariantStatus::kHeld);
  EXPECT_EQ(r.StatusOf(r.invariants[0]), InvariantStatus::kNotExercised);
  EXPECT_EQ(ToString(r.StatusOf(r.invariants[0])), "NOT EXERCISED");
  // No kill applied a model: the trials ran under none, whatever the scenario declared.
  r.models = {kProcess, kPower, kTorn};
  EXPECT_TRUE(r.ModelsRun().empty());
  EXPECT_EQ(r.trials_by_model, (std::map<std::string, int>{{"process", 4}}));
  EXPECT_NE(r.exercise.Explanation().find("never reached: open:tmpk3x9q1ab"), std::string::npos)
      << r.exercise.Explanation();
}

TEST(ScenarioResult, EveryPointFiredSomewhereIsExercisedByDefault) {
  ScenarioResult r = Empty();
  r.Add(PlanWithKill(0, "a"), {Verdict::Held("no_loss")}, "",
        Fired({{"a", kPower, true}, {"b", kTorn, false}}));
  r.Add(PlanWithKill(1, "b"), {Verdict::Held("no_loss")}, "", Fired({{"b", kTorn, true}}));
  EXPECT_FALSE(r.NotExercised());
  EXPECT_EQ(r.exercise.kills_unfired, 1);
  EXPECT_EQ(r.exercise.trials_all_fired, 1);
  EXPECT_EQ(r.ModelsRun(), (std::vector<std::string>{"power", "torn"}));
  EXPECT_EQ(r.StatusOf(r.invariants[0]), InvariantStatus::kHeld);
  // A threshold on the share of trials in which every planned kill fired: 1 of 2.
  r.exercise.min_exercised = 0.75;
  EXPECT_TRUE(r.NotExercised());
  r.exercise.min_exercised = 0.5;
  EXPECT_FALSE(r.NotExercised());
}

// A call the supervisor refused (io_uring_setup) ran unseen: every kill fired, yet the scenario
// tested less than it says.
TEST(ScenarioResult, ARefusedCallMakesTheScenarioNotExercisedAndSaysWhy) {
  ScenarioResult r = Empty();
  TrialExercise refused = Fired({{"a", kPower, true}});
  refused.refused = {"io_uring_setup"};
  r.Add(PlanWithKill(0, "a"), {Verdict::Held("no_loss")}, "", Fired({{"a", kPower, true}}));
  EXPECT_FALSE(r.NotExercised());
  r.Add(PlanWithKill(1, "a"), {Verdict::Held("no_loss")}, "", refused);
  EXPECT_TRUE(r.NotExercised());
  EXPECT_EQ(r.StatusOf(r.invariants[0]), InvariantStatus::kNotExercised);
  EXPECT_EQ(r.exercise.Explanation(),
            "the job called io_uring_setup in 1 trial, which the supervisor refuses (its "
            "operations would run unseen)");
  EXPECT_EQ(nlohmann::json(r.exercise).get<ExerciseStats>(), r.exercise);
  // A job without a fallback fails at the refusal: its violations are not the job's, and it
  // did run.
  r.Add(PlanWithKill(2, "a"), {Verdict::Violated("no_loss", "lost")}, "", refused);
  EXPECT_EQ(r.invariants[0].Status(), InvariantStatus::kViolated);
  EXPECT_EQ(r.StatusOf(r.invariants[0]), InvariantStatus::kNotExercised);
  EXPECT_FALSE(r.MustHoldViolated());
  r.start_failures.Add(0, StartFailure{1, "killpoint supervisor: io_uring_setup refused"});
  r.start_failures.Add(1, StartFailure{1, ""});
  r.start_failures.Add(2, StartFailure{1, ""});
  EXPECT_FALSE(r.NeverRan());
}

// A discovery that found no crash point (a job whose files are not in the sandbox, patterns
// that match nothing, --exhaustive with nothing to try): no trial planned a kill, and that is
// not "held".
TEST(ScenarioResult, NoCrashPointToPlanFromIsNotExercised) {
  ScenarioResult r = Empty();
  r.Add(PlanWithKill(0, ""), {Verdict::Held("no_loss")}, "", Fired({}));
  EXPECT_FALSE(r.NotExercised());
  r.exercise.no_points = true;
  EXPECT_TRUE(r.NotExercised());
  EXPECT_EQ(r.StatusOf(r.invariants[0]), InvariantStatus::kNotExercised);
  EXPECT_NE(r.exercise.Explanation().find("passed no crash point"), std::string::npos);
  EXPECT_EQ(nlohmann::json(r.exercise).get<ExerciseStats>(), r.exercise);
}

TEST(ScenarioResult, AViolationStaysAViolationAndNothingPlannedIsNothingMissed) {
  ScenarioResult r = Empty();
  r.Add(PlanWithKill(0, "a"), {Verdict::Violated("no_loss", "lost")}, "",
        Fired({{"a", kProcess, false}}));
  EXPECT_TRUE(r.NotExercised());
  EXPECT_EQ(r.StatusOf(r.invariants[0]), InvariantStatus::kViolated);
  ScenarioResult none = Empty();
  none.Add(Plan{"s", 1, 0, {{"2026-11-01", 1, {}}}}, {Verdict::Held("no_loss")}, "", Fired({}));
  EXPECT_FALSE(none.NotExercised());
  EXPECT_EQ(none.exercise.trials_with_kill, 0);
}

TEST(ScenarioResult, AnExampleListsOnlyTheKillsThatFiredUnderTheModelsApplied) {
  ScenarioResult r = Empty();
  Plan p{"s", 1, 0, {{"2026-11-01", 1, {{"a", 1, "", kPower}, {"b", 1, "", kTorn}}}}};
  r.Add(p, {Verdict::Violated("no_loss", "lost")}, "",
        Fired({{"a", kPower, true}, {"b", kTorn, false}}));
  EXPECT_EQ(r.invariants[0].examples[0].plan, "2026-11-01#1 a1 kill@a#1/power");
  EXPECT_EQ(r.invariants[0].examples[0].explanation, "lost (under the power model)");
}

TEST(RunResults, ExerciseCountsRoundTripAndOldResultsLoadAsExercised) {
  RunResults r;
  ScenarioResult s = Empty();
  s.exercise.min_exercised = 0.5;
  s.Add(PlanWithKill(0, "a"), {Verdict::Held("no_loss")}, "", Fired({{"a", kPower, false}}));
  r.scenarios.push_back(s);
  nlohmann::json j = r;
  EXPECT_EQ(j["not_exercised"], true);
  EXPECT_EQ(j["scenarios"][0]["exercise"]["never_reached"], nlohmann::json({"a"}));
  EXPECT_EQ(j["scenarios"][0]["exercise"]["kills_unfired"], 1);
  EXPECT_EQ(j["scenarios"][0]["min_exercised"], 0.5);
  EXPECT_EQ(nlohmann::json::parse(j.dump()).get<RunResults>(), r);
  j["scenarios"][0].erase("exercise");
  j["scenarios"][0].erase("min_exercised");
  RunResults old = j.get<RunResults>();
  EXPECT_FALSE(old.NotExercised());
  EXPECT_FALSE(old.scenarios[0].exercise.known);
}

}  // namespace
}  // namespace killpoint

namespace killpoint {
namespace {

TrialExercise WroteOutside(std::vector<OutsideWrite> writes) {
  TrialExercise e;
  e.outside = std::move(writes);
  return e;
}

// Writes outside the sandbox (issue 18): per scenario, distinct paths and how many trials wrote
// each, a warning unless writes_in_sandbox is checked; kept through JSON (merge, resume).
TEST(ScenarioResult, CountsWritesOutsideTheSandboxPerPath) {
  ScenarioResult r = Empty();
  r.Add(PlanWithKill(0, "x"), {}, "",
        WroteOutside({{"/tmp/a", "temp", {"open"}}, {"/var/b", "elsewhere", {"rename"}}}));
  r.Add(PlanWithKill(1, "x"), {}, "", WroteOutside({{"/tmp/a", "temp", {"unlink"}}}));
  r.Add(PlanWithKill(2, "x"), {}, "", WroteOutside({}));
  ASSERT_EQ(r.outside_writes.size(), 2u);
  EXPECT_EQ(r.outside_writes[0], (OutsideWriteStat{"/tmp/a", "temp", {"open", "unlink"}, 2}));
  EXPECT_EQ(r.outside_writes[1].trials, 1);
  std::vector<std::string> notes = r.OutsideWriteNotes();
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(
      notes[0],
      "this job wrote /tmp/a (open, unlink) outside its sandbox in 2 of 3 trials: no persistence "
      "model applied to it, and the next trial sees it");
  EXPECT_NE(r.OutsideWriteHint().find("writes_in_sandbox"), std::string::npos);
  RunResults run;
  run.scenarios.push_back(r);
  EXPECT_EQ(nlohmann::json(run).get<RunResults>(), run);

  r.invariants.push_back({"writes_in_sandbox", kMustHold, 0, 0, {}, {}});
  EXPECT_EQ(r.OutsideWriteHint(), "") << "checked: a violation, not a warning";
  EXPECT_TRUE(Empty().OutsideWriteNotes().empty());
  EXPECT_EQ(Empty().OutsideWriteHint(), "");
  EXPECT_FALSE(nlohmann::json(Empty()).contains("outside_writes"));
}

TEST(ScenarioResult, KeepsTheFirstOutsidePathsAndCountsTheRest) {
  ScenarioResult r = Empty();
  for (int t = 0; t < static_cast<int>(kMaxOutsidePaths) + 3; ++t) {
    r.Add(PlanWithKill(t, "x"), {}, "",
          WroteOutside({{"/tmp/random-" + std::to_string(1000 + t), "temp", {"open"}}}));
  }
  EXPECT_EQ(r.outside_writes.size(), kMaxOutsidePaths);
  EXPECT_EQ(r.outside_more, 3);
  EXPECT_EQ(
      r.OutsideWriteNotes().back(),
      "and 3 more writes to other paths outside its sandbox (the results keep the first 20 paths)");
}

}  // namespace
}  // namespace killpoint

namespace killpoint {
namespace {

// A trial whose every attempt failed with `code` before any crash point.
TrialExercise FailedAtOnce(int64_t code, const std::string& err = "") {
  TrialExercise e;
  e.start_failure = StartFailure{code, err};
  return e;
}

ScenarioResult ConvergesOnly() {
  ScenarioResult r;
  r.name = "s";
  r.invariants = {{"converges", kMustHold, 0, 0, {}, {}}};
  return r;
}

TEST(NeverRan, EveryTrialFailingAtOnceWithOneCodeIsNoVerdict) {
  std::string traceback = "Traceback (most recent call last):\n";
  for (int i = 0; i < 20; ++i) traceback += "  File \"x.py\", line " + std::to_string(i) + "\n";
  traceback += "ModuleNotFoundError: No module named 'payouts'\n\n";
  ScenarioResult r = ConvergesOnly();
  for (int t = 0; t < 3; ++t)
    r.Add(PlanWithKill(t, "after_publish"), {Verdict::Violated("converges", "exit 1")}, "replay",
          FailedAtOnce(1, traceback));
  EXPECT_TRUE(r.NeverRan());
  EXPECT_FALSE(r.MustHoldViolated());
  EXPECT_EQ(r.StatusOf(r.invariants[0]), InvariantStatus::kNotExercised);
  EXPECT_NE(r.NeverRanExplanation().find("every attempt of its 3 trials exited with code 1"),
            std::string::npos)
      << r.NeverRanExplanation();
  std::vector<std::string> err = r.NeverRanStderr();
  ASSERT_EQ(err.size(), kNeverRanStderrLines);
  EXPECT_EQ(err.back(), "ModuleNotFoundError: No module named 'payouts'");  // the last line kept
  RunResults run;
  run.scenarios = {r};
  EXPECT_TRUE(run.NeverRan());
  EXPECT_FALSE(run.MustHoldViolated());
  // Through results.json: the same verdict.
  ScenarioResult back = nlohmann::json(r).get<ScenarioResult>();
  EXPECT_EQ(back, r);
  EXPECT_TRUE(nlohmann::json(r)["never_ran"].get<bool>());
}

TEST(NeverRan, OneTrialThatRanOrTwoCodesKeepTheVerdicts) {
  ScenarioResult r = ConvergesOnly();
  r.Add(PlanWithKill(0, "p"), {Verdict::Violated("converges", "exit 127")}, "", FailedAtOnce(127));
  r.Add(PlanWithKill(1, "p"), {Verdict::Violated("converges", "exit 3")}, "", TrialExercise{});
  EXPECT_FALSE(r.NeverRan());
  EXPECT_TRUE(r.MustHoldViolated());
  EXPECT_TRUE(r.NeverRanStderr().empty());
  ScenarioResult two = ConvergesOnly();
  two.Add(PlanWithKill(0, "p"), {Verdict::Violated("converges", "x")}, "", FailedAtOnce(127));
  two.Add(PlanWithKill(1, "p"), {Verdict::Violated("converges", "x")}, "", FailedAtOnce(2));
  EXPECT_FALSE(two.NeverRan());
  EXPECT_EQ(two.StatusOf(two.invariants[0]), InvariantStatus::kViolated);
}

}  // namespace
}  // namespace killpoint

namespace killpoint {
namespace {

// The run's backend and each scenario's round-trip; results of before the field load with it
// unknown (""), which claims no backend.
TEST(RunResults, TheInterceptionBackendRoundTripsAndOldResultsLoadItUnknown) {
  RunResults r;
  r.killpoint_version = "0.1.0";
  r.interception = "seccomp";
  ScenarioResult intercepted = Empty();
  intercepted.interception = "seccomp";
  ScenarioResult plain = Empty();
  plain.name = "plain";
  plain.interception = kNoInterception;
  r.scenarios = {intercepted, plain};
  nlohmann::json j = r;
  EXPECT_EQ(j["interception"], "seccomp");
  EXPECT_EQ(j["scenarios"][0]["interception"], "seccomp");
  EXPECT_EQ(j["scenarios"][1]["interception"], "none");
  EXPECT_EQ(nlohmann::json::parse(j.dump()).get<RunResults>(), r);
  EXPECT_TRUE(Intercepted(r.interception));
  EXPECT_FALSE(Intercepted(plain.interception));

  j.erase("interception");
  for (auto& s : j["scenarios"]) s.erase("interception");
  RunResults old = j.get<RunResults>();
  EXPECT_EQ(old.interception, "");
  EXPECT_EQ(old.scenarios[0].interception, "");
  EXPECT_FALSE(Intercepted(old.interception));
  nlohmann::json again = old;
  EXPECT_FALSE(again.contains("interception"));  // unknown stays absent, not "none"
}

TEST(RunResults, MergedPartsOfDifferentBackendsAreMixed) {
  EXPECT_EQ(MergedInterception({"seccomp", "seccomp"}), "seccomp");
  EXPECT_EQ(MergedInterception({"none", "none"}), "none");
  EXPECT_EQ(MergedInterception({"seccomp", "preload", "seccomp"}), "mixed: seccomp, preload");
  EXPECT_EQ(MergedInterception({"preload", "", "seccomp"}), "mixed: preload, unknown, seccomp");
  EXPECT_EQ(MergedInterception({"", ""}), "");
  EXPECT_TRUE(Intercepted("mixed: seccomp, preload"));
}

}  // namespace
}  // namespace killpoint
