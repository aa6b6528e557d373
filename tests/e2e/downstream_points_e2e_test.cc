// Downstream crash points (issue 17, docs/scenarios.md "Downstream crash points"): a Python job
// with no failpoint client and no shim is killed by the harness's downstream right after it
// delivered a refund, before the answer. A fresh Idempotency-Key per call refunds twice; a key
// that is the same on every attempt is deduplicated. The replay kills at the same request.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "history/event_registry.h"
#include "history/history.h"
#include "history/history_log.h"
#include "killpoint_cli.h"

namespace killpoint::testing {
namespace {

const std::string kDownstreamFixtures = "tests/fixtures/downstream-points/";
const std::string kAfterCommitPoint = "downstream:/publish:after_commit";

TEST(DownstreamPoints, AKillAfterCommitRefundsTwiceWithAFreshKeyAndReplays) {
  CliRun r = RunKillpoint("ds-fresh-key",
                          {"run", kDownstreamFixtures + "refund-fresh-key.json", "--seed", "1"});
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_THAT(r.out,
              ::testing::HasSubstr("one_delivery_per_key   must hold      2/2     VIOLATED"));
  auto log = ReadHistoryLog(r.dir / "fixture-refund-fresh-key" / "history.jsonl");
  ASSERT_TRUE(log) << log.error().message;
  for (const auto& [trial, events] : log.value()) {
    int kills = 0;
    for (size_t i = 0; i < events.size(); ++i) {
      if (events[i].type != event::Kill::kType) continue;
      ++kills;
      EXPECT_EQ(events[i].data["point"], kAfterCommitPoint) << "trial " << trial;
      // The delivery is in the downstream's state before the kill (the failpoint event of the
      // point itself in between); the attempt got no answer: it died of the kill.
      ASSERT_GT(i, 1u);
      EXPECT_EQ(events[i - 1].type, event::Failpoint::kType) << "trial " << trial;
      EXPECT_EQ(events[i - 2].type, event::Publish::kType) << "trial " << trial;
      EXPECT_EQ(events[i - 2].data["committed"], true) << "trial " << trial;
      auto exit = std::find_if(events.begin() + static_cast<long>(i), events.end(),
                               [](const Event& e) { return e.type == event::Exit::kType; });
      ASSERT_NE(exit, events.end());
      EXPECT_EQ(exit->data["signal"], 9) << "trial " << trial;
    }
    EXPECT_GE(kills, 1) << "trial " << trial;
  }
  fs::path example =
      r.dir / "fixture-refund-fresh-key" / "counterexamples" / "trial-0-one_delivery_per_key.json";
  CliRun replay = RunKillpoint("ds-replay", {"replay", example.string()});
  EXPECT_EQ(replay.exit_code, 1) << replay.out << replay.err;
  EXPECT_THAT(replay.out, ::testing::HasSubstr("one_delivery_per_key: violated again"));
}

TEST(DownstreamPoints, AStableKeyIsDeduplicatedAndPointsListsThem) {
  CliRun r = RunKillpoint("ds-stable-key",
                          {"run", kDownstreamFixtures + "refund-stable-key.json", "--seed", "1"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  auto log = ReadHistoryLog(r.dir / "fixture-refund-stable-key" / "history.jsonl");
  ASSERT_TRUE(log) << log.error().message;
  for (const auto& [trial, events] : log.value()) {
    EXPECT_FALSE(OfType(events, event::Kill::kType).empty())
        << "trial " << trial << " made no kill";
  }
  CliRun points = RunKillpoint(
      "ds-points", {"points", kDownstreamFixtures + "refund-stable-key.json", "--json"});
  ASSERT_EQ(points.exit_code, 0) << points.err;
  std::vector<std::string> downstream;
  for (const auto& p : nlohmann::json::parse(points.out)) {
    if (p["kind"] == "downstream")
      downstream.push_back(p["point"].get<std::string>() + "#" +
                           std::to_string(p["occurrence"].get<int>()));
  }
  EXPECT_EQ(downstream,
            (std::vector<std::string>{
                "downstream:/publish:before_commit#1", kAfterCommitPoint + "#1",
                "downstream:/publish:after_answer#1", "downstream:/publish:before_commit#2",
                kAfterCommitPoint + "#2", "downstream:/publish:after_answer#2"}));
}

}  // namespace
}  // namespace killpoint::testing
