// dedupe_by idempotency_key: the downstream compares the Idempotency-Key header, so a fresh
// key per call deduplicates nothing and the same key deduplicates whatever the body says.
#include <gtest/gtest.h>
#include <httplib.h>

#include "downstream/downstream.h"
#include "history/event_registry.h"
#include "scenario/scenario.h"

namespace killpoint {
namespace {

using nlohmann::json;

class DedupeByHeader : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = Downstream::Start(true, &history_, true);
    ASSERT_TRUE(s);
    downstream_ = std::move(s.value());
  }
  json Publish(const std::string& key, const std::string& header) {
    httplib::Client c(downstream_->BaseUrl());
    c.set_read_timeout(2, 0);
    httplib::Headers h;
    if (!header.empty()) h.emplace("Idempotency-Key", header);
    auto r = c.Post("/publish", h, json{{"key", key}, {"biz_date", "2026-11-01"}}.dump(),
                    "application/json");
    EXPECT_TRUE(r && r->status == 200);
    return r ? json::parse(r->body) : json();
  }
  History history_;
  std::unique_ptr<Downstream> downstream_;
};

TEST_F(DedupeByHeader, AFreshKeyPerCallDeduplicatesNothing) {
  EXPECT_EQ(Publish("refund-1", "uuid-a")["deduplicated"], false);
  json again = Publish("refund-1", "uuid-b");
  EXPECT_EQ(again["deduplicated"], false);
  EXPECT_EQ(again["delivery_id"], 2);
}

TEST_F(DedupeByHeader, TheSameKeyDeduplicatesToTheFirstDelivery) {
  Publish("refund-1", "refund-1");
  Publish("refund-2", "refund-2");
  json again = Publish("refund-1", "refund-1");
  EXPECT_EQ(again["deduplicated"], true);
  EXPECT_EQ(again["delivery_id"], 1);
  auto events = OfType(history_.Events(), event::Publish::kType);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[2].data["committed"], false);
  EXPECT_EQ(events[2].data["idempotency_key"], "refund-1");
}

TEST_F(DedupeByHeader, ARequestWithoutTheHeaderIsNeverADuplicate) {
  Publish("refund-1", "");
  EXPECT_EQ(Publish("refund-1", "")["deduplicated"], false);
}

}  // namespace
}  // namespace killpoint
