// Counterexample files: what is written reads back equal; whatever is damaged, foreign or
// from another version is refused with a message that names the file.
#include "counterexample/counterexample.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "history/event_registry.h"
#include "util/atomic_file.h"

namespace killpoint {
namespace {

using enum PersistenceModel;

namespace fs = std::filesystem;

class CounterexampleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kp-ce-test-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static CounterexampleFile Sample() {
    CounterexampleFile c;
    c.killpoint_version = "0.1.0";
    c.scenario_file = "/x/scenarios/publish.json";
    c.scenario_name = "publish/execute-then-mark";
    c.scenario_text = "{\"name\": \"publish/execute-then-mark\"}\n";
    c.source = "explore";
    c.plan.scenario = c.scenario_name;
    c.plan.seed = 3;
    c.plan.runs = {{"2026-11-01", 1, {{"after_publish", 1, "", kProcess, Moment::kBefore}}}};
    c.invariant = "no_double_publish";
    c.explanation = "2026-11-01 was published 2 times";
    c.verdicts = {Verdict::Violated("no_double_publish", c.explanation), Verdict::Held("no_loss")};
    Event e;
    e.seq = 0;
    e.type = event::Spawn::kType;
    e.biz_date = "2026-11-01";
    e.trigger = 1;
    e.attempt = 1;
    e.data = {{"pid", 42}};
    c.events = {e};
    c.final_state = {{"deliveries", {{"k", 2}}}};
    c.reproduce = "killpoint replay x.json";
    return c;
  }

  fs::path Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return dir_ / name;
  }

  std::string ErrorOf(const fs::path& p) {
    auto r = ReadCounterexample(p);
    EXPECT_FALSE(r);
    if (r) return "";
    EXPECT_EQ(r.error().kind, ErrorKind::kBadInput);
    EXPECT_NE(r.error().message.find(p.string()), std::string::npos) << r.error().message;
    return r.error().message;
  }

  fs::path dir_;
};

TEST_F(CounterexampleTest, ReadsBackWhatWasWritten) {
  CounterexampleFile c = Sample();
  ASSERT_TRUE(WriteCounterexample(dir_ / "sub" / "c.json", c));
  auto back = ReadCounterexample(dir_ / "sub" / "c.json");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back.value(), c);
}

// An explore interrupted while shrinking marks its counterexample partial; a whole one has no
// such field at all.
TEST_F(CounterexampleTest, PartialIsWrittenOnlyWhenSetAndReadsBack) {
  CounterexampleFile c = Sample();
  EXPECT_FALSE(ToJson(c).contains("partial"));
  c.partial = "interrupted by SIGINT while shrinking, after 3 of at most 300 steps";
  EXPECT_EQ(ToJson(c)["partial"], c.partial);
  ASSERT_TRUE(WriteCounterexample(dir_ / "partial.json", c));
  auto back = ReadCounterexample(dir_ / "partial.json");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back.value().partial, c.partial);
  EXPECT_EQ(back.value(), c);
}

TEST_F(CounterexampleTest, RefusesDamagedAndForeignFiles) {
  std::string good = ToJson(Sample()).dump();
  EXPECT_NE(ErrorOf(dir_ / "missing.json").find("missing.json"), std::string::npos);
  EXPECT_NE(ErrorOf(Write("cut.json", good.substr(0, good.size() / 2))).find("not valid JSON"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Write("array.json", "[1,2]")).find("JSON object"), std::string::npos);
  EXPECT_NE(ErrorOf(Write("empty.json", "")).find("not valid JSON"), std::string::npos);
  EXPECT_NE(ErrorOf(Write("results.json", R"({"killpoint_version":"0.1.0","scenarios":[]})"))
                .find("format"),
            std::string::npos);
  nlohmann::json future = ToJson(Sample());
  future["format"] = "killpoint-counterexample/9";
  EXPECT_NE(ErrorOf(Write("future.json", future.dump())).find("killpoint-counterexample/9"),
            std::string::npos);
  nlohmann::json no_plan = ToJson(Sample());
  no_plan.erase("plan");
  EXPECT_NE(ErrorOf(Write("no-plan.json", no_plan.dump())).find("missing or of the wrong type"),
            std::string::npos);
  nlohmann::json bad_events = ToJson(Sample());
  bad_events["events"] = "none";
  ErrorOf(Write("bad-events.json", bad_events.dump()));
  nlohmann::json empty_plan = ToJson(Sample());
  empty_plan["plan"]["runs"] = nlohmann::json::array();
  EXPECT_NE(ErrorOf(Write("empty-plan.json", empty_plan.dump())).find("no runs"),
            std::string::npos);
  fs::create_directories(dir_ / "a-dir.json");
  ErrorOf(dir_ / "a-dir.json");
}

Event Ev(int64_t seq, const char* type, nlohmann::json data) {
  Event e;
  e.seq = seq;
  e.type = type;
  e.data = std::move(data);
  return e;
}

TEST(Fingerprint, LeavesOutWhatDiffersFromRunToRun) {
  Event a;
  a.type = event::Spawn::kType;
  a.data = {{"pid", 1}, {"fault", "x"}};
  Event b = a;
  b.data["pid"] = 2;
  EXPECT_EQ(Fingerprint({a}), Fingerprint({b}));
  b.data["fault"] = "y";
  EXPECT_NE(Fingerprint({a}), Fingerprint({b}));
  Event c = a;
  c.attempt = 2;
  EXPECT_NE(Fingerprint({a}), Fingerprint({c}));
}

// docs/faults.md: whether a job waited for a lock a killed holder left depends on the real
// clock; a replay that did not wait (or did) is the same schedule, and the events after keep
// their places.
TEST(Fingerprint, LeavesOutAJobsWaitForALock) {
  Event spawn = Ev(0, event::Spawn::kType, {{"pid", 1}});
  Event wait =
      Ev(1, event::JobWait::kType, {{"key", "payout lease"}, {"ms", 93}, {"acquired", true}});
  EXPECT_EQ(Fingerprint({spawn, wait, Ev(2, event::Exit::kType, {{"code", 0}})}),
            Fingerprint({spawn, Ev(1, event::Exit::kType, {{"code", 0}})}));
  EXPECT_NE(Fingerprint({spawn, wait, Ev(2, event::Exit::kType, {{"code", 0}})}),
            Fingerprint({spawn, Ev(1, event::Exit::kType, {{"code", 75}})}));
}

// docs/faults.md: the events of an overlap's two instances interleave by chance.
TEST(Fingerprint, IgnoresHowTwoInstancesInterleavedButNotWhatEitherDid) {
  Event first = Ev(0, event::Failpoint::kType, {{"point", "a"}, {"hit", 1}});
  Event second = Ev(0, event::Failpoint::kType, {{"point", "a"}, {"hit", 1}, {"instance", 2}});
  Event exit2 = Ev(0, event::Exit::kType, {{"code", 0}, {"instance", 2}});
  Event exit1 = Ev(0, event::Exit::kType, {{"code", 0}});
  auto numbered = [](std::vector<Event> events) {
    for (size_t i = 0; i < events.size(); ++i) events[i].seq = static_cast<int64_t>(i);
    return events;
  };
  auto one = numbered({first, second, exit2, exit1});
  auto other = numbered({second, first, exit2, exit1});
  EXPECT_EQ(Fingerprint(one), Fingerprint(other));
  auto differs = numbered({second, first, exit1});  // the second's exit is missing
  EXPECT_NE(Fingerprint(one), Fingerprint(differs));
  auto swapped = numbered({exit1, second, first, exit2});  // the first's own order changed
  EXPECT_NE(Fingerprint(one), Fingerprint(swapped));
  // Without a second instance, positions (seq) still count as before.
  EXPECT_EQ(Fingerprint({first})[0][0], 0);
}

}  // namespace
}  // namespace killpoint
