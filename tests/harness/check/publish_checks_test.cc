#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "check_fixture.h"
#include "history/event_registry.h"

namespace killpoint {
namespace {

using ::testing::HasSubstr;

TEST(NoDoublePublish, IgnoresDeduplicatedAndFailedRequests) {
  CheckFixture f;
  f.Publish("2026-11-01", true, 1);
  f.Publish("2026-11-01", false, 1);  // deduplicated or failed before commit
  f.Publish("2026-11-02", true, 2);
  EXPECT_TRUE(f.Check("no_double_publish").held);
}

TEST(NoDoublePublish, NamesTheDateAndBothDeliveries) {
  CheckFixture f;
  f.history().SetContext({"2026-11-01", 1, 1});
  f.Publish("2026-11-01", true, 3);
  f.history().SetContext({"2026-11-01", 1, 2});
  f.Publish("2026-11-01", true, 5);
  Verdict v = f.Check("no_double_publish");
  EXPECT_FALSE(v.held);
  EXPECT_THAT(v.explanation, HasSubstr("2026-11-01 was published 2 times: deliveries 3 and 5"));
  EXPECT_THAT(v.explanation, HasSubstr("run 1 attempt 1 and run 1 attempt 2"));
}

TEST(NoLoss, NamesTheUndeliveredDateAndWhy) {
  CheckFixture f;
  f.Publish("2026-11-01", true, 1);
  f.Exit("2026-11-02", 0, "already done\n");
  Verdict v = f.Check("no_loss");
  EXPECT_FALSE(v.held);
  EXPECT_THAT(v.explanation, HasSubstr("2026-11-02 was never delivered"));
  EXPECT_THAT(v.explanation, HasSubstr("exited with code 0 (stderr: already done)"));
}

TEST(NoSilentLoss, AcceptsAnAlertInsteadOfADelivery) {
  CheckFixture f;
  f.Publish("2026-11-01", true, 1);
  EXPECT_FALSE(f.Check("no_silent_loss").held);
  f.history().Add(
      event::Alert::kType,
      {{"key", "publish-2026-11-02"}, {"biz_date", "2026-11-02"}, {"reason", "pending"}});
  EXPECT_TRUE(f.Check("no_silent_loss").held);
  EXPECT_FALSE(f.Check("no_loss").held);
}

}  // namespace
}  // namespace killpoint
