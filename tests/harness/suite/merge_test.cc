// MergeShards against hand-made shard folders: the fold equals one unsharded fold, and every
// way shards can fail to be one run is refused with BadInput before anything is written.
#include "suite/merge.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "results/layout.h"
#include "suite/suite.h"
#include "util/atomic_file.h"

namespace killpoint {
namespace {

using enum PersistenceModel;

namespace fs = std::filesystem;

constexpr const char* kName = "demo/merge";

fs::path Fresh(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("kp-merge-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

Plan PlanOf(int trial, uint64_t seed) {
  Plan p;
  p.scenario = kName;
  p.seed = seed;
  p.trial = trial;
  p.runs.push_back({});
  return p;
}

// Every third trial violates "no-loss"; "dup" holds always.
std::vector<Verdict> VerdictsOf(int trial) {
  return {trial % 3 == 1
              ? Verdict::Violated("no-loss", "trial " + std::to_string(trial) + " lost a row")
              : Verdict::Held("no-loss"),
          Verdict::Held("dup")};
}

ScenarioResult Empty() {
  ScenarioResult r;
  r.name = kName;
  r.file = "scenarios/demo.json";
  r.models = {kProcess};
  r.invariants = {{"no-loss", kMustHold, 0, 0, {}, {}}, {"dup", kMustHold, 0, 0, {}, {}}};
  return r;
}

std::string Replay(int trial, uint64_t seed) {
  Scenario s;
  s.file = "scenarios/demo.json";
  return ReplayCommand(s, seed, trial, false);
}

// Writes what `killpoint run --shard index/count --trials total --seed seed` would leave.
fs::path MakeShard(const fs::path& root, int index, int count, int total, uint64_t seed = 5) {
  fs::path dir = root / ("shard-" + std::to_string(index));
  fs::create_directories(dir / Slug(kName));
  RunResults r;
  r.killpoint_version = "test";
  r.seed = seed;
  r.started_at = "2026-01-0" + std::to_string(index + 1) + "T00:00:00Z";
  r.elapsed_s = index + 1;
  r.shard = ShardInfo{index, count};
  ScenarioResult s = Empty();
  s.elapsed_s = 1;
  std::string trials, history;
  for (int t = index; t < total; t += count) {
    s.Add(PlanOf(t, seed), VerdictsOf(t), Replay(t, seed));
    nlohmann::json line = {{"trial", t}, {"plan", PlanOf(t, seed)}, {"verdicts", VerdictsOf(t)}};
    trials += line.dump() + "\n";
    history += "{\"trial\":" + std::to_string(t) + ",\"type\":\"x\"}\n";
  }
  r.scenarios.push_back(s);
  std::ofstream(dir / Slug(kName) / "trials.jsonl") << trials;
  std::ofstream(dir / Slug(kName) / "history.jsonl") << history;
  std::ofstream(dir / "results.json") << nlohmann::json(r).dump(2);
  return dir;
}

std::vector<fs::path> MakeShards(const fs::path& root, int count, int total) {
  std::vector<fs::path> dirs;
  for (int i = 0; i < count; ++i) dirs.push_back(MakeShard(root, i, count, total));
  return dirs;
}

std::string Refusal(const std::vector<fs::path>& dirs, const fs::path& out) {
  auto r = MergeShards(dirs, out);
  if (r) return "(merged)";
  EXPECT_EQ(r.error().kind, ErrorKind::kBadInput) << r.error().message;
  EXPECT_FALSE(fs::exists(out / "results.json")) << "a refused merge wrote results";
  return r.error().message;
}

TEST(MergeShards, FoldsTheTrialsInTrialOrderAsOneRunWould) {
  fs::path root = Fresh("fold");
  auto dirs = MakeShards(root, 3, 14);
  std::swap(dirs[0], dirs[2]);  // the order named does not matter
  auto merged = MergeShards(dirs, root / "merged");
  ASSERT_TRUE(merged) << merged.error().message;
  ScenarioResult expected = Empty();
  std::string trials;
  for (int t = 0; t < 14; ++t) {
    expected.Add(PlanOf(t, 5), VerdictsOf(t), Replay(t, 5));
    trials +=
        nlohmann::json({{"trial", t}, {"plan", PlanOf(t, 5)}, {"verdicts", VerdictsOf(t)}}).dump() +
        "\n";
  }
  expected.elapsed_s = 3;  // the sum of the shards'
  ASSERT_EQ(merged.value().scenarios.size(), 1u);
  EXPECT_EQ(merged.value().scenarios[0], expected);
  EXPECT_EQ(merged.value().elapsed_s, 3);  // the longest shard's
  EXPECT_EQ(merged.value().started_at, "2026-01-01T00:00:00Z");
  EXPECT_FALSE(merged.value().shard);
  EXPECT_EQ(ReadFile(root / "merged" / Slug(kName) / "trials.jsonl").value(), trials);
  std::string history = ReadFile(root / "merged" / Slug(kName) / "history.jsonl").value();
  EXPECT_EQ(history.find("{\"trial\":0,"), 0u);
  EXPECT_LT(history.find("{\"trial\":12,"), history.find("{\"trial\":13,"));
  EXPECT_TRUE(fs::exists(root / "merged" / "results.json"));
}

TEST(MergeShards, RefusesShardsOfDifferentSeeds) {
  fs::path root = Fresh("seeds");
  auto dirs = MakeShards(root, 2, 6);
  dirs[1] = MakeShard(root / "other", 1, 2, 6, 6);
  EXPECT_NE(Refusal(dirs, root / "merged").find("different seeds"), std::string::npos);
}

TEST(MergeShards, RefusesDuplicateAndMissingIndexes) {
  fs::path root = Fresh("indexes");
  auto dirs = MakeShards(root, 3, 9);
  EXPECT_NE(Refusal({dirs[0], dirs[1]}, root / "merged").find("missing shard 2/3"),
            std::string::npos);
  EXPECT_NE(Refusal({dirs[0], dirs[1], dirs[1], dirs[2]}, root / "merged")
                .find("duplicate shard index 1"),
            std::string::npos);
  fs::path other = MakeShard(root / "four", 3, 4, 9);
  EXPECT_NE(
      Refusal({dirs[0], dirs[1], dirs[2], other}, root / "merged").find("different shard counts"),
      std::string::npos);
}

TEST(MergeShards, RefusesOverlappingTrials) {
  fs::path root = Fresh("overlap");
  auto dirs = MakeShards(root, 2, 6);
  fs::path journal = dirs[1] / Slug(kName) / "trials.jsonl";
  std::string text = ReadFile(journal).value();
  std::ofstream(journal, std::ios::app) << text.substr(0, text.find('\n') + 1);  // trial 1 again
  EXPECT_NE(Refusal(dirs, root / "merged").find("trial 1 is there twice"), std::string::npos);
  // Trial 0 belongs to shard 0, not to shard 1.
  std::string zero = ReadFile(dirs[0] / Slug(kName) / "trials.jsonl").value();
  std::ofstream(journal) << text << zero.substr(0, zero.find('\n') + 1);
  EXPECT_NE(Refusal(dirs, root / "merged").find("trial 0 is not of shard 1/2"), std::string::npos);
}

TEST(MergeShards, RefusesDamagedResultsAndJournals) {
  fs::path root = Fresh("damaged");
  auto dirs = MakeShards(root, 2, 6);
  std::string results = ReadFile(dirs[1] / "results.json").value();
  std::ofstream(dirs[1] / "results.json") << results.substr(0, results.size() / 2);
  EXPECT_NE(Refusal(dirs, root / "merged").find("damaged results file"), std::string::npos);
  std::ofstream(dirs[1] / "results.json") << results;
  std::ofstream(dirs[0] / Slug(kName) / "trials.jsonl", std::ios::app) << "{\"trial\": 2, \"pla\n";
  EXPECT_NE(Refusal(dirs, root / "merged").find("damaged trials journal"), std::string::npos);
}

TEST(MergeShards, RefusesAJournalThatDisagreesWithItsResults) {
  fs::path root = Fresh("count");
  auto dirs = MakeShards(root, 2, 6);
  std::string text = ReadFile(dirs[0] / Slug(kName) / "trials.jsonl").value();
  std::ofstream(dirs[0] / Slug(kName) / "trials.jsonl") << text.substr(0, text.find('\n') + 1);
  EXPECT_NE(Refusal(dirs, root / "merged").find("holds 1 trials, its results.json counts 3"),
            std::string::npos);
}

TEST(MergeShards, RefusesDifferentScenarioSets) {
  fs::path root = Fresh("sets");
  auto dirs = MakeShards(root, 2, 6);
  std::string results = ReadFile(dirs[1] / "results.json").value();
  auto j = nlohmann::json::parse(results);
  j["scenarios"][0]["name"] = "demo/other";
  std::ofstream(dirs[1] / "results.json") << j.dump();
  EXPECT_NE(Refusal(dirs, root / "merged").find("different scenario sets"), std::string::npos);
}

// Sets the backend a shard's results.json records, for the run and its scenario.
void SetInterception(const fs::path& dir, const std::string& interception) {
  auto j = nlohmann::json::parse(ReadFile(dir / "results.json").value());
  j["interception"] = interception;
  j["scenarios"][0]["interception"] = interception;
  std::ofstream(dir / "results.json", std::ios::trunc) << j.dump();
}

// Shards run on machines with and without seccomp merge, and the merged run says it was mixed;
// shards that agree keep their backend.
TEST(MergeShards, ShardsOfDifferentBackendsMergeAsMixed) {
  fs::path root = Fresh("backends");
  auto dirs = MakeShards(root, 3, 9);
  for (const fs::path& dir : dirs) SetInterception(dir, "seccomp");
  auto same = MergeShards(dirs, root / "same");
  ASSERT_TRUE(same) << same.error().message;
  EXPECT_EQ(same.value().interception, "seccomp");
  EXPECT_EQ(same.value().scenarios[0].interception, "seccomp");

  SetInterception(dirs[1], "preload");
  std::swap(dirs[0], dirs[1]);  // shard order, not the order named
  auto mixed = MergeShards(dirs, root / "mixed");
  ASSERT_TRUE(mixed) << mixed.error().message;
  EXPECT_EQ(mixed.value().interception, "mixed: seccomp, preload");
  EXPECT_EQ(mixed.value().scenarios[0].interception, "mixed: seccomp, preload");
  auto written = nlohmann::json::parse(ReadFile(root / "mixed" / "results.json").value());
  EXPECT_EQ(written["interception"], "mixed: seccomp, preload");
}

TEST(MergeShards, RefusesToMergeIntoAShard) {
  fs::path root = Fresh("into");
  auto dirs = MakeShards(root, 2, 6);
  auto r = MergeShards(dirs, dirs[0]);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("is one of the shards"), std::string::npos);
}

}  // namespace
}  // namespace killpoint

// Issue 17: the shards' exercise counts fold like one run's, and a point that fired in one
// shard only is reached.
namespace killpoint {
namespace {

// Trial t plans a kill at "a" (fired in odd trials only) and one at "never" (never fired).
TrialExercise ExerciseOfTrial(int t) {
  return {{{"a", kPower, t % 2 == 1}, {"never", kTorn, false}}, 0, 0, true};
}

fs::path MakeExercisedShard(const fs::path& root, int index, int count, int total) {
  fs::path dir = root / ("shard-" + std::to_string(index));
  fs::create_directories(dir / Slug(kName));
  RunResults r;
  r.killpoint_version = "test";
  r.seed = 5;
  r.started_at = "2026-01-01T00:00:00Z";
  r.shard = ShardInfo{index, count};
  ScenarioResult s = Empty();
  s.exercise.min_exercised = 0.25;
  std::string trials;
  for (int t = index; t < total; t += count) {
    s.Add(PlanOf(t, 5), VerdictsOf(t), Replay(t, 5), ExerciseOfTrial(t));
    trials += nlohmann::json({{"trial", t},
                              {"plan", PlanOf(t, 5)},
                              {"verdicts", VerdictsOf(t)},
                              {"exercise", ExerciseOfTrial(t)}})
                  .dump() +
              "\n";
  }
  r.scenarios.push_back(s);
  std::ofstream(dir / Slug(kName) / "trials.jsonl") << trials;
  std::ofstream(dir / Slug(kName) / "history.jsonl") << "";
  std::ofstream(dir / "results.json") << nlohmann::json(r).dump(2);
  return dir;
}

TEST(MergeShards, FoldsTheExerciseCountsAsOneRunWould) {
  fs::path root = Fresh("exercise");
  // Shard 0 holds the even trials, where "a" never fired: reached only through shard 1.
  std::vector<fs::path> dirs = {MakeExercisedShard(root, 0, 2, 8),
                                MakeExercisedShard(root, 1, 2, 8)};
  nlohmann::json first = nlohmann::json::parse(ReadFile(dirs[0] / "results.json").value());
  ASSERT_EQ(first["scenarios"][0]["exercise"]["never_reached"], nlohmann::json({"a", "never"}));
  auto merged = MergeShards(dirs, root / "merged");
  ASSERT_TRUE(merged) << merged.error().message;
  const ExerciseStats& e = merged.value().scenarios[0].exercise;
  EXPECT_EQ(e.trials_with_kill, 8);
  EXPECT_EQ(e.trials_all_fired, 0);
  EXPECT_EQ(e.kills_planned, 16);
  EXPECT_EQ(e.kills_unfired, 12);
  EXPECT_EQ(e.points.at("a").fired, 4);
  EXPECT_EQ(e.NeverReached(), std::vector<std::string>{"never"});
  EXPECT_EQ(e.models, (std::map<std::string, int>{{"power", 4}}));
  EXPECT_EQ(e.min_exercised, 0.25);
  EXPECT_TRUE(merged.value().NotExercised());  // 0 of 8 trials had every kill fire
  ScenarioResult expected = Empty();
  expected.exercise.min_exercised = 0.25;
  for (int t = 0; t < 8; ++t)
    expected.Add(PlanOf(t, 5), VerdictsOf(t), Replay(t, 5), ExerciseOfTrial(t));
  expected.elapsed_s = 0;
  EXPECT_EQ(merged.value().scenarios[0], expected);
  // Read back as `killpoint report` reads it.
  RunResults again =
      nlohmann::json::parse(ReadFile(root / "merged" / "results.json").value()).get<RunResults>();
  EXPECT_EQ(again.scenarios[0].exercise, e);
}

}  // namespace
}  // namespace killpoint
