#include "results/diff.h"

#include <gtest/gtest.h>

namespace killpoint {
namespace {

InvariantResult DiffInvOf(const std::string& name, const std::string& expectation, int violated,
                          int trials = 10) {
  InvariantResult r{name, expectation, trials - violated, violated, {}, {}};
  if (violated) r.examples = {{3, 1, "plan", "broke", "killpoint run s.json --trial 3", "", ""}};
  return r;
}

ScenarioResult DiffScn(const std::string& name, std::vector<InvariantResult> invariants) {
  ScenarioResult s;
  s.name = name;
  s.trials = 10;
  s.invariants = std::move(invariants);
  return s;
}

// A scenario whose planned kill point never fired: every held invariant reads not exercised.
ScenarioResult DiffUnexercised(ScenarioResult s) {
  s.exercise.known = true;
  s.exercise.trials_with_kill = 10;
  s.exercise.points["after_publish"] = {10, 0};
  return s;
}

RunResults DiffRunOf(std::vector<ScenarioResult> scenarios) {
  RunResults r;
  r.scenarios = std::move(scenarios);
  return r;
}

const InvariantChange& ChangeOf(const RunDiff& d, const std::string& scenario,
                                const std::string& invariant) {
  for (const InvariantChange& c : d.invariants) {
    if (c.scenario == scenario && c.invariant == invariant) return c;
  }
  static InvariantChange none;
  ADD_FAILURE() << "no " << scenario << " / " << invariant;
  return none;
}

TEST(DiffRuns, ANewViolationIsWorseAndNamesOnlyIt) {
  RunResults before = DiffRunOf(
      {DiffScn("a", {DiffInvOf("no_loss", kMustHold, 0), DiffInvOf("converges", kMustHold, 2)}),
       DiffScn("b", {DiffInvOf("no_loss", kMustHold, 0)})});
  RunResults after = DiffRunOf(
      {DiffScn("a", {DiffInvOf("no_loss", kMustHold, 4), DiffInvOf("converges", kMustHold, 3)}),
       DiffScn("b", {DiffInvOf("no_loss", kMustHold, 0)})});
  RunDiff d = DiffRuns(before, after);
  EXPECT_TRUE(d.Worse());
  ASSERT_EQ(d.Count(Change::kNewViolation), 1);
  const InvariantChange& c = *d.Of(Change::kNewViolation).front();
  EXPECT_EQ(c.scenario, "a");
  EXPECT_EQ(c.invariant, "no_loss");
  EXPECT_EQ(c.before, InvariantStatus::kHeld);
  EXPECT_EQ(c.after, InvariantStatus::kViolated);
  EXPECT_EQ(c.violated_after, 4);
  EXPECT_EQ(c.trials_after, 10);
  EXPECT_EQ(c.replay, "killpoint run s.json --trial 3");
  EXPECT_EQ(ChangeOf(d, "a", "converges").change, Change::kStillViolated);
  EXPECT_EQ(ChangeOf(d, "b", "no_loss").change, Change::kUnchanged);
}

TEST(DiffRuns, AViolationInTheBaselineTooIsNotWorse) {
  RunResults r = DiffRunOf({DiffScn("a", {DiffInvOf("no_loss", kMustHold, 2)})});
  RunDiff d = DiffRuns(r, r);
  EXPECT_FALSE(d.Worse());
  EXPECT_FALSE(d.Changed());
  EXPECT_EQ(d.Count(Change::kStillViolated), 1);
}

TEST(DiffRuns, FixedAndTradeOffsEitherWay) {
  RunResults before =
      DiffRunOf({DiffScn("a", {DiffInvOf("no_loss", kMustHold, 2),
                               DiffInvOf("no_double_publish", kExpectedViolation, 3),
                               DiffInvOf("at_most_once", kExpectedViolation, 0)})});
  RunResults after = DiffRunOf({DiffScn("a", {DiffInvOf("no_loss", kMustHold, 0),
                                              DiffInvOf("no_double_publish", kExpectedViolation, 0),
                                              DiffInvOf("at_most_once", kExpectedViolation, 1)})});
  RunDiff d = DiffRuns(before, after);
  EXPECT_FALSE(d.Worse());
  EXPECT_TRUE(d.Changed());
  EXPECT_EQ(ChangeOf(d, "a", "no_loss").change, Change::kFixed);
  EXPECT_EQ(ChangeOf(d, "a", "no_double_publish").change, Change::kNewlyNotDemonstrated);
  EXPECT_EQ(ChangeOf(d, "a", "at_most_once").change, Change::kNewlyShown);
}

TEST(DiffRuns, NotExercisedEitherWay) {
  RunResults tested = DiffRunOf({DiffScn("a", {DiffInvOf("no_loss", kMustHold, 0)})});
  RunResults untested =
      DiffRunOf({DiffUnexercised(DiffScn("a", {DiffInvOf("no_loss", kMustHold, 0)}))});
  RunDiff worse = DiffRuns(tested, untested);
  EXPECT_TRUE(worse.Worse());
  EXPECT_EQ(ChangeOf(worse, "a", "no_loss").change, Change::kNewlyNotExercised);
  EXPECT_EQ(ChangeOf(DiffRuns(untested, tested), "a", "no_loss").change, Change::kNowExercised);
  EXPECT_EQ(ChangeOf(DiffRuns(untested, untested), "a", "no_loss").change,
            Change::kStillNotExercised);
}

TEST(DiffRuns, ScenariosAndInvariantsAddedAndRemoved) {
  RunResults before = DiffRunOf(
      {DiffScn("kept", {DiffInvOf("no_loss", kMustHold, 0), DiffInvOf("gone", kMustHold, 0)}),
       DiffScn("old", {DiffInvOf("no_loss", kMustHold, 1)})});
  RunResults after = DiffRunOf(
      {DiffScn("kept", {DiffInvOf("no_loss", kMustHold, 0), DiffInvOf("fresh", kMustHold, 0)}),
       DiffScn("new", {DiffInvOf("no_loss", kMustHold, 0), DiffInvOf("bad", kMustHold, 1)})});
  RunDiff d = DiffRuns(before, after);
  EXPECT_EQ(d.scenarios_added, std::vector<std::string>{"new"});
  EXPECT_EQ(d.scenarios_removed, std::vector<std::string>{"old"});
  EXPECT_EQ(ChangeOf(d, "kept", "gone").change, Change::kRemoved);
  EXPECT_EQ(ChangeOf(d, "kept", "fresh").change, Change::kAdded);
  EXPECT_EQ(ChangeOf(d, "new", "no_loss").change, Change::kAdded);
  EXPECT_FALSE(ChangeOf(d, "new", "no_loss").before.has_value());
  // A violation in an added scenario is new: the change brought it.
  EXPECT_EQ(ChangeOf(d, "new", "bad").change, Change::kNewViolation);
  EXPECT_EQ(ChangeOf(d, "old", "no_loss").change, Change::kRemoved);
  EXPECT_FALSE(ChangeOf(d, "old", "no_loss").after.has_value());
  EXPECT_EQ(d.Count(Change::kNewViolation), 1);
}

TEST(DiffRuns, AJobThatNeverRanIsListed) {
  ScenarioResult s = DiffScn("a", {DiffInvOf("no_loss", kMustHold, 0)});
  RunResults before = DiffRunOf({s});
  s.start_failures.Add(0, StartFailure{127, "not found"});
  s.start_failures.trials = s.trials;
  RunDiff d = DiffRuns(before, DiffRunOf({s}));
  EXPECT_EQ(d.never_ran, std::vector<std::string>{"a"});
  EXPECT_EQ(ChangeOf(d, "a", "no_loss").change, Change::kNewlyNotExercised);
}

TEST(DiffRuns, JsonNamesEveryChange) {
  RunResults before = DiffRunOf({DiffScn("a", {DiffInvOf("no_loss", kMustHold, 0)})});
  RunResults after = DiffRunOf({DiffScn("a", {DiffInvOf("no_loss", kMustHold, 1)})});
  RunDiff d = DiffRuns(before, after);
  d.before_source = "base";
  nlohmann::json j = d;
  EXPECT_EQ(j["format"], "killpoint-diff/1");
  EXPECT_EQ(j["worse"], true);
  EXPECT_EQ(j["counts"]["new_violation"], 1);
  EXPECT_EQ(j["invariants"][0]["change"], "new_violation");
  EXPECT_EQ(j["invariants"][0]["before"], "held");
  EXPECT_EQ(j["invariants"][0]["after"], "VIOLATED");
  EXPECT_EQ(j["invariants"][0]["replay"], "killpoint run s.json --trial 3");
  EXPECT_EQ(j["before"], "base");
}

}  // namespace
}  // namespace killpoint
