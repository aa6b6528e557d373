// one_delivery_per_key over hand-made histories.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "check_fixture.h"
#include "history/event_registry.h"

namespace killpoint {
namespace {

using ::testing::HasSubstr;

void Deliver(History& h, const std::string& key, const std::string& header, bool committed,
             int id) {
  h.Add(event::Publish::kType, {{"key", key},
                                {"biz_date", "2026-11-01"},
                                {"idempotency_key", header},
                                {"committed", committed},
                                {"deduplicated", !committed},
                                {"delivery_id", id}});
}

TEST(OneDeliveryPerKey, HoldsWhenEachKeyIsDeliveredOnceWhateverTheDate) {
  CheckFixture f;
  f.history().SetContext({"2026-11-01", 1, 1});
  Deliver(f.history(), "refund-1", "refund-1", true, 1);
  Deliver(f.history(), "refund-2", "refund-2", true,
          2);  // same date: no_double_publish would object
  Deliver(f.history(), "refund-1", "refund-1", false, 1);  // deduplicated: not a delivery
  Verdict v = f.Check("one_delivery_per_key");
  EXPECT_TRUE(v.held) << v;
  EXPECT_FALSE(f.Check("no_double_publish").held);
}

TEST(OneDeliveryPerKey, NamesTheKeyTheDeliveriesAndTheirIdempotencyKeys) {
  CheckFixture f;
  f.history().SetContext({"2026-11-01", 1, 1});
  Deliver(f.history(), "refund-1", "uuid-a", true, 1);
  f.history().SetContext({"2026-11-01", 1, 2});
  Deliver(f.history(), "refund-1", "uuid-b", true, 2);
  Verdict v = f.Check("one_delivery_per_key");
  EXPECT_FALSE(v.held);
  EXPECT_EQ(v.explanation,
            "2026-11-01: refund-1 was delivered 2 times: delivery 1 (run 1 attempt 1, "
            "Idempotency-Key uuid-a); "
            "delivery 2 (run 1 attempt 2, Idempotency-Key uuid-b)");
}

}  // namespace
}  // namespace killpoint
