#include "reports/report_loader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "history/history_log.h"
#include "report_fixture.h"
#include "results/layout.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string ResultsText() {
  nlohmann::json j = testing::HostileReport().runs[0].results;
  return j.dump(2);
}

fs::path FreshDir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("kp-loader-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

void Write(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

TEST(ParseResults, ReadsWhatRunWrites) {
  auto r = ParseResults(ResultsText(), "out/results.json");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r.value(), testing::HostileReport().runs[0].results);
}

TEST(ParseResults, DamagedOrForeignFilesAreClearErrorsNamingTheFile) {
  auto expect = [](const std::string& text, const std::string& message) {
    auto r = ParseResults(text, "o/results.json");
    ASSERT_FALSE(r) << text;
    EXPECT_EQ(r.error().kind, ErrorKind::kBadInput);
    EXPECT_THAT(r.error().message, HasSubstr(message)) << text;
  };
  std::string good = ResultsText();
  expect(good.substr(0, good.size() / 2), "o/results.json: not valid JSON (damaged or truncated?)");
  expect("", "o/results.json: not valid JSON");
  expect("[1,2]", "o/results.json: not a killpoint results file");
  expect(R"({"format": "killpoint-results/9"})",
         "o/results.json: results format \"killpoint-results/9\" is not the killpoint-results/1 "
         "this killpoint reads");
  nlohmann::json j = nlohmann::json::parse(good);
  j["scenarios"][0]["invariants"][1].erase("held");
  expect(j.dump(), "o/results.json: scenarios[0] (\"evil/<script>");
  expect(j.dump(), "key 'held' not found");
  j = nlohmann::json::parse(good);
  j["scenarios"][0]["invariants"][0]["expectation"] = "maybe";
  expect(j.dump(),
         "invariant no_loss: expectation \"maybe\" is neither must_hold nor expected_violation");
  j = nlohmann::json::parse(good);
  j["seed"] = "seven";
  expect(j.dump(), "o/results.json: type must be number");
  j = nlohmann::json::parse(good);
  j["scenarios"] = 3;
  expect(j.dump(), "\"scenarios\" is not an array");
}

TEST(ReadTrialEvents, KeepsOnlyTheWantedTrialsAndDropsATornTail) {
  fs::path dir = FreshDir("events");
  fs::path log = dir / "history.jsonl";
  auto events = testing::DoublePublishHistory();
  std::string text;
  for (int trial : {1, 3, 13, 31}) text += FormatTrialHistory(trial, events);
  Write(log, text + "{\"trial\":3,\"seq\":99,\"ty");  // torn by a crash mid-append
  auto r = ReadTrialEvents(log, {3, 31});
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r.value().size(), 2u);
  EXPECT_EQ(r.value().at(3), events);
  EXPECT_EQ(r.value().at(31), events);
}

TEST(ReadTrialEvents, ABrokenLineOfAWantedTrialIsAnErrorNamingFileAndLine) {
  fs::path dir = FreshDir("broken");
  fs::path log = dir / "history.jsonl";
  Write(log,
        FormatTrialHistory(1, testing::DoublePublishHistory()) + "{\"trial\":2,\"seq\":\"x\"}\n");
  auto r = ReadTrialEvents(log, {2});
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr(log.string() + ":15: not a history event"));
}

TEST(LoadRun, ReadsResultsAndTheCounterexamplesHistoriesFromAnOutputFolder) {
  fs::path dir = FreshDir("run");
  Write(dir / "results.json", ResultsText());
  ScenarioResult s = testing::HostileReport().runs[0].results.scenarios[0];
  fs::create_directories(dir / Slug(s.name));
  Write(dir / Slug(s.name) / "history.jsonl",
        FormatTrialHistory(3, testing::DoublePublishHistory()) + FormatTrialHistory(2, {}));
  auto r = LoadRun(dir);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r.value().source, dir.string());
  ASSERT_NE(r.value().Events(0, 3), nullptr);
  EXPECT_EQ(*r.value().Events(0, 3), testing::DoublePublishHistory());
  EXPECT_EQ(r.value().Events(0, 1), nullptr);  // an example whose trial the journal lacks
  EXPECT_THAT(r.value().history_notes[0], HasSubstr("lacks this trial"));
  // The results file itself names the same run.
  auto same = LoadRun(dir / "results.json");
  ASSERT_TRUE(same) << same.error().message;
  EXPECT_EQ(same.value().histories, r.value().histories);
}

TEST(LoadRun, AMissingJournalLeavesTheTimelinesOutWithANote) {
  fs::path dir = FreshDir("nojournal");
  Write(dir / "results.json", ResultsText());
  auto r = LoadRun(dir);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r.value().Events(0, 3), nullptr);
  EXPECT_THAT(r.value().history_notes[0], HasSubstr("history.jsonl is missing"));
}

TEST(LoadRun, SaysWhatIsMissing) {
  fs::path dir = FreshDir("empty");
  auto none = LoadRun(dir / "nope");
  ASSERT_FALSE(none);
  EXPECT_THAT(none.error().message, HasSubstr("nope: no such file or folder"));
  auto empty = LoadRun(dir);
  ASSERT_FALSE(empty);
  EXPECT_THAT(empty.error().message, HasSubstr("results.json is missing: is " + dir.string() +
                                               " the --out folder of a killpoint run?"));
}

}  // namespace
}  // namespace killpoint

namespace killpoint {
namespace {

// A shard's results say which shard they are, for `killpoint merge`; an unsharded run's do not.
TEST(ParseResults, ReadsTheShardOfAShardedRun) {
  RunResults r;
  r.killpoint_version = "test";
  r.seed = 5;
  r.shard = ShardInfo{1, 3};
  nlohmann::json j = r;
  EXPECT_EQ(j["shard"], nlohmann::json({{"index", 1}, {"count", 3}}));
  auto parsed = ParseResults(j.dump(), "results.json");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed.value(), r);
  EXPECT_EQ(j.get<RunResults>(), r);
  r.shard.reset();
  EXPECT_FALSE(nlohmann::json(r).contains("shard"));
  EXPECT_FALSE(ParseResults(nlohmann::json(r).dump(), "results.json").value().shard);
}

// `killpoint report` reads the run's interception backend and each scenario's, so that it
// renders what the run rendered; results of before the field read it unknown.
TEST(ParseResults, ReadsTheInterceptionBackend) {
  RunResults r = testing::HostileReport().runs[0].results;
  r.interception = "seccomp";
  r.scenarios[0].interception = "seccomp";
  auto parsed = ParseResults(nlohmann::json(r).dump(), "results.json");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed.value(), r);
  nlohmann::json old = r;
  old.erase("interception");
  old["scenarios"][0].erase("interception");
  auto before = ParseResults(old.dump(), "results.json");
  ASSERT_TRUE(before) << before.error().message;
  EXPECT_EQ(before.value().interception, "");
  EXPECT_EQ(before.value().scenarios[0].interception, "");
}

}  // namespace
}  // namespace killpoint
