// killpoint explore and replay end to end: the real binary searches schedules of the bundled
// buggy scenarios with its default budget, shrinks what it finds to the smallest story, saves
// it, and every saved counterexample replays with the same events and verdict, 20 times.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "counterexample/counterexample.h"
#include "history/event_registry.h"
#include "killpoint_cli.h"

namespace killpoint::testing {
namespace {

struct Shrunk {
  std::set<std::string> dates;
  int attempts = 0;  // spawned
  int kills = 0;
  std::vector<std::string> kill_points;
};

Shrunk Measure(const CounterexampleFile& c) {
  Shrunk s;
  for (const auto& run : c.plan.runs) s.dates.insert(run.biz_date);
  for (const Event& e : c.events) {
    if (e.type == event::Spawn::kType) ++s.attempts;
    if (e.type == event::Kill::kType) {
      ++s.kills;
      s.kill_points.push_back(e.data.value("when", "") + ":" + e.data.value("point", ""));
    }
  }
  return s;
}

// Explores a bundled scenario with the default budget; returns the counterexample it saved.
CounterexampleFile Explore(const std::string& scenario, const std::string& invariant) {
  CliRun r = RunKillpoint("explore-" + invariant,
                          {"explore", "scenarios/" + scenario + ".json", "--seed", "1"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;  // an expected violation shown is not a failure
  EXPECT_NE(r.out.find(invariant + " violated (expected)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("reproduce: killpoint replay "), std::string::npos) << r.out;
  std::string slug = scenario;
  std::replace(slug.begin(), slug.end(), '/', '-');
  fs::path file;
  for (const auto& entry : fs::recursive_directory_iterator(r.dir)) {
    if (entry.path().filename() == "explore-" + invariant + ".json") file = entry.path();
  }
  auto c = ReadCounterexample(file);
  EXPECT_TRUE(c) << "no counterexample under " << r.dir << ": " << (c ? "" : c.error().message);
  return c ? c.value() : CounterexampleFile{};
}

void ExpectReplaysTheSame(const CounterexampleFile& c, const std::string& name, int times) {
  fs::path file = FreshDir("ce-" + name) / "ce.json";
  ASSERT_TRUE(WriteCounterexample(file, c));
  for (int i = 0; i < times; ++i) {
    CliRun r = RunKillpoint("replay-" + name, {"replay", file.string()});
    ASSERT_EQ(r.exit_code, 1) << "replay " << i << ": the violation did not come back\n"
                              << r.out << r.err;
    ASSERT_NE(r.out.find(c.invariant + ": violated again"), std::string::npos) << r.out;
    ASSERT_NE(r.out.find("history: the same events in the same order as recorded"),
              std::string::npos)
        << "replay " << i << ":\n"
        << r.out;
  }
}

// A date fired twice (a duplicate trigger) is all it takes: one date, two attempts.
void ExpectOneDateTwoAttempts(const std::string& scenario, const std::string& invariant) {
  CounterexampleFile c = Explore(scenario, invariant);
  Shrunk s = Measure(c);
  EXPECT_EQ(s.dates.size(), 1u) << c.plan.Summary();
  EXPECT_EQ(s.attempts, 2) << c.plan.Summary();
  ExpectReplaysTheSame(c, scenario, 20);
}

TEST(Explore, IncrementShrinksToOneDateAndTwoAttempts) {
  ExpectOneDateTwoAttempts("settle-increment", "amount_matches_source");
}

TEST(Explore, TimestampKeyShrinksToOneDateAndTwoAttempts) {
  ExpectOneDateTwoAttempts("settle-timestamp-key", "one_row_per_date");
}

TEST(Explore, ExecuteThenMarkShrinksToOneKillAfterPublishAndOneRetry) {
  CounterexampleFile c = Explore("publish-execute-then-mark", "no_double_publish");
  Shrunk s = Measure(c);
  EXPECT_EQ(s.dates.size(), 1u) << c.plan.Summary();
  EXPECT_EQ(s.kills, 1) << c.plan.Summary();
  EXPECT_EQ(s.kill_points, std::vector<std::string>{"before:after_publish"}) << c.plan.Summary();
  EXPECT_EQ(s.attempts, 2) << c.plan.Summary();  // the killed one and its retry
  ExpectReplaysTheSame(c, "execute-then-mark", 20);
}

TEST(Explore, CorrectStrategyShowsNothingAndSaysHowToSearchAgain) {
  CliRun r =
      RunKillpoint("explore-upsert", {"explore", "scenarios/settle-upsert.json", "--trials", "30"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("no violation in 30 schedules"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("search again: killpoint explore " KILLPOINT_SOURCE_DIR
                       "/scenarios/settle-upsert.json --seed 1 --trials 30"),
            std::string::npos)
      << r.out;
}

// Issue 33: a pattern draws its kills from the points a fault-free run passes, as run plans
// them. The job's state write is the second match of "write:*" (a log line comes first):
// explore used to kill at the first match only and reported "no violation in 100 schedules".
TEST(Explore, APatternKillsAtEveryPointItMatches) {
  CliRun r = RunKillpoint(
      "explore-pattern",
      {"explore", "tests/fixtures/explore/log-then-state.json", "--trials", "100", "--seed", "1"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("kill@write:state.json"), std::string::npos) << r.out;
}

TEST(Explore, UnknownInvariantIsBadInput) {
  CliRun r = RunKillpoint("explore-bad",
                          {"explore", "scenarios/settle-upsert.json", "--invariant", "no_such"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--invariant no_such"), std::string::npos) << r.err;
}

TEST(Run, ViolationsCarryCounterexampleFilesThatReplay) {
  CliRun r =
      RunKillpoint("run-ce", {"run", "scenarios/publish-execute-then-mark.json", "--trials", "6"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  nlohmann::json inv = Invariant(r.Results(), "publish/execute-then-mark", "no_double_publish");
  ASSERT_FALSE(inv["examples"].empty());
  for (const auto& example : inv["examples"]) {
    std::string file = example["file"];
    ASSERT_FALSE(file.empty());
    EXPECT_EQ(file.rfind(r.dir.string(), 0), 0u) << file;  // under the run's --out
    EXPECT_NE(example["replay"].get<std::string>().find("--seed 1 --trial"), std::string::npos);
    auto c = ReadCounterexample(file);
    ASSERT_TRUE(c) << c.error().message;
    EXPECT_EQ(c.value().invariant, "no_double_publish");
    EXPECT_EQ(c.value().plan.trial, example["trial"].get<int>());
    EXPECT_EQ(c.value().source, "run");
    // What the checkers saw: the date delivered twice.
    EXPECT_EQ(c.value().final_state["deliveries"]["publish-2026-11-01"], 2)
        << c.value().final_state.dump();
  }
  std::string first = inv["examples"][0]["file"].get<std::string>();
  CliRun replay = RunKillpoint("run-ce-replay", {"replay", first, "--keep"});
  EXPECT_EQ(replay.exit_code, 1) << replay.out << replay.err;
  EXPECT_NE(replay.out.find("! kill -9 "), std::string::npos) << replay.out;
  EXPECT_NE(replay.out.find("sandbox kept: "), std::string::npos) << replay.out;
  std::string kept = replay.out.substr(replay.out.find("sandbox kept: ") + 14);
  kept = kept.substr(0, kept.find('\n'));
  EXPECT_TRUE(fs::exists(fs::path(kept) / "work" / "publish-state.json")) << kept;
  fs::remove_all(kept);
}

TEST(Replay, DamagedFileIsBadInputNamingIt) {
  fs::path dir = FreshDir("replay-damaged");
  std::ofstream(dir / "cut.json") << "{\"format\": \"killpoint-counterexample/1\", \"plan\": {";
  CliRun r = RunKillpoint("replay-damaged-run", {"replay", (dir / "cut.json").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find((dir / "cut.json").string()), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

}  // namespace
}  // namespace killpoint::testing
