// `killpoint init`'s draft: the invariants, models and crash points that fit what a job did.
#include "init/scenario_draft.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "scenario/scenario_parser.h"

namespace killpoint {
namespace {

using ::testing::ElementsAre;

JobSurvey Survey() {
  JobSurvey s;
  s.name = "payout";
  s.command = {"python3", "{scenario_dir}/payout.py"};
  s.dates = {"2026-11-01", "2026-11-02"};
  return s;
}

std::vector<std::string> MustHold(const ScenarioDraft& d) {
  return d.scenario["invariants"]["must_hold"].get<std::vector<std::string>>();
}

TEST(ScenarioDraft, PatternsAreFamiliesOfPoints) {
  EXPECT_EQ(PointPattern("rename:<tmp1>:state.json"), "rename:*");
  EXPECT_EQ(PointPattern("write:sub/state.json"), "write:*");
  EXPECT_EQ(PointPattern("downstream:/publish:after_commit"), "downstream:/publish:*");
  EXPECT_EQ(PointPattern("after_publish"), "after_publish");
  EXPECT_THAT(PointPaths("rename:<tmp1>:state.json"), ElementsAre("<tmp1>", "state.json"));
  EXPECT_THAT(PointPaths("fsync:."), ElementsAre("."));
  EXPECT_TRUE(PointPaths("downstream:/publish:before_commit").empty());
}

TEST(ScenarioDraft, AJobThatTouchesNothingConvergesOnly) {
  ScenarioDraft d = DraftScenario(Survey());
  EXPECT_THAT(MustHold(d), ElementsAre("converges"));
  EXPECT_FALSE(d.scenario.contains("check"));
  EXPECT_TRUE(ParseScenario(d.scenario.dump(), "/x/payout.json")) << d.scenario.dump();
}

TEST(ScenarioDraft, AStateFileAndAPublishPerDate) {
  JobSurvey s = Survey();
  s.points = {"open:<tmp1>",
              "write:<tmp1>",
              "rename:<tmp1>:state.json",
              "fsync:.",
              "downstream:/publish:before_commit",
              "write:<tmp1>"};
  s.files = {{"notes.txt", SurveyedFile::Kind::kOther},
             {"other.json", SurveyedFile::Kind::kJsonObject},
             {"state.json", SurveyedFile::Kind::kJsonObject}};
  s.publishes = {{"payout-2026-11-01", "2026-11-01", ""}};
  ScenarioDraft d = DraftScenario(s);
  EXPECT_THAT(d.scenario["failpoints"].get<std::vector<std::string>>(),
              ElementsAre("open:*", "write:*", "rename:*", "fsync:*", "downstream:/publish:*"));
  EXPECT_EQ(d.scenario["check"]["state_file"], "state.json");  // renamed onto, not other.json
  EXPECT_THAT(MustHold(d),
              ElementsAre("no_double_publish", "no_silent_loss", "state_readable", "converges"));
  EXPECT_FALSE(d.scenario.contains("downstream"));
  EXPECT_TRUE(ParseScenario(d.scenario.dump(), "/x/payout.json")) << d.scenario.dump();
}

TEST(ScenarioDraft, SeveralKeysADateAndAnIdempotencyKey) {
  JobSurvey s = Survey();
  s.publishes = {{"refund-1", "2026-11-01", "r1"}, {"refund-2", "2026-11-01", "r2"}};
  ScenarioDraft d = DraftScenario(s);
  EXPECT_THAT(MustHold(d), ElementsAre("one_delivery_per_key", "no_silent_loss", "converges"));
  EXPECT_EQ(d.scenario["downstream"]["dedupe_by"], "idempotency_key");
  EXPECT_TRUE(ParseScenario(d.scenario.dump(), "/x/payout.json")) << d.scenario.dump();
}

TEST(ScenarioDraft, ASqliteDatabaseGetsAPlaceholderCheck) {
  JobSurvey s = Survey();
  s.files = {{"ledger.db", SurveyedFile::Kind::kSqlite}};
  ScenarioDraft d = DraftScenario(s);
  EXPECT_EQ(d.scenario["check"]["db"], "ledger.db");
  EXPECT_EQ(d.scenario["checks"]["your_rule"]["db"], "ledger.db");
  EXPECT_THAT(MustHold(d), ElementsAre("state_readable", "your_rule", "converges"));
  EXPECT_TRUE(ParseScenario(d.scenario.dump(), "/x/payout.json")) << d.scenario.dump();
  for (const DraftNote& n : d.notes) EXPECT_FALSE(n.doc.empty()) << n.field;
}

}  // namespace
}  // namespace killpoint
