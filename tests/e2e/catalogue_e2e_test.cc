// The catalogue of idempotency patterns (docs/catalogue.md), end to end: the catalogue's 22
// scenarios and the 29 of scenarios/services/ (real servers) in the bundled run (BundledRun():
// `killpoint run scenarios`, default trials and seed, once per e2e_test process), and every
// verdict pinned: each correct form holds its must-hold invariants, each bug shows its expected
// violation.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "history/event_registry.h"
#include "history/history_log.h"
#include "killpoint_cli.h"
#include "util/slug.h"

namespace killpoint::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kHeld = "held";
constexpr const char* kShown = "expected, shown";

class Catalogue : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { run_ = &BundledRun(); }

  static void Expect(const std::string& scenario,
                     const std::map<std::string, std::string>& statuses) {
    ExpectNamed("catalogue/" + scenario, statuses);
  }
  static void ExpectNamed(const std::string& name,
                          const std::map<std::string, std::string>& statuses) {
    for (const auto& [invariant, status] : statuses) {
      nlohmann::json i = Invariant(run_->Results(), name, invariant);
      ASSERT_FALSE(i.is_null()) << name << " has no " << invariant;
      EXPECT_EQ(i["status"], status) << name << " " << invariant << ": " << i.dump();
    }
  }
  static std::string FirstExample(const std::string& scenario, const std::string& invariant) {
    return FirstExampleNamed("catalogue/" + scenario, invariant);
  }
  static std::string FirstExampleNamed(const std::string& name, const std::string& invariant) {
    nlohmann::json i = Invariant(run_->Results(), name, invariant);
    if (i.is_null() || i["examples"].empty()) return "";
    return i["examples"][0]["explanation"].get<std::string>();
  }
  static const CliRun* run_;
};
const CliRun* Catalogue::run_ = nullptr;

TEST_F(Catalogue, EveryMustHoldHoldsAndEveryExpectedViolationShows) {
  EXPECT_EQ(run_->exit_code, 0) << run_->out << run_->err;
  int catalogue = 0;
  for (const auto& s : run_->Results()["scenarios"]) {
    if (!s["name"].get<std::string>().starts_with("catalogue/")) continue;
    ++catalogue;
    for (const auto& i : s["invariants"])
      EXPECT_NE(i["status"], "expected, not demonstrated") << s["name"];
    // The scenarios say so, so that the bundled run stays short: a paused holder costs its
    // pause in real time (docs/faults.md), so those run 12 trials.
    bool paused = s["name"].get<std::string>().find("paused-holder") != std::string::npos;
    EXPECT_EQ(s["trials"], paused ? 12 : 24) << s["name"];
  }
  EXPECT_EQ(catalogue, 22);
}

TEST_F(Catalogue, OrderStatus) {
  Expect(
      "order-status-upsert",
      {{"one_status_per_order", kHeld}, {"status_for_every_order", kHeld}, {"converges", kHeld}});
  Expect(
      "order-status-insert",
      {{"one_status_per_order", kShown}, {"status_for_every_order", kHeld}, {"converges", kHeld}});
  EXPECT_THAT(FirstExample("order-status-insert", "one_status_per_order"),
              ::testing::ContainsRegex(
                  "^an order has more than one status row: [0-9]+ rows? in order-status.db, "
                  "(first 3: )?order_id=2026110[1-3]0[1-5], biz_date=2026-11-0[1-3], n=[2-9]"));
}

TEST_F(Catalogue, Inventory) {
  Expect("inventory-ledger", {{"one_log_row_per_order", kHeld},
                              {"stock_matches_shipments", kHeld},
                              {"every_shipment_logged", kHeld},
                              {"converges", kHeld}});
  Expect("inventory-no-key", {{"one_log_row_per_order", kShown},
                              {"stock_matches_shipments", kShown},
                              {"every_shipment_logged", kHeld},
                              {"converges", kHeld}});
  EXPECT_THAT(FirstExample("inventory-no-key", "stock_matches_shipments"),
              HasSubstr("dates=2026-11-01"));
}

TEST_F(Catalogue, Refund) {
  Expect("refund-order-key", {{"one_delivery_per_key", kHeld},
                              {"no_loss", kHeld},
                              {"refund_recorded_for_every_request", kHeld},
                              {"converges", kHeld}});
  Expect("refund-uuid", {{"one_delivery_per_key", kShown},
                         {"no_loss", kHeld},
                         {"refund_recorded_for_every_request", kHeld},
                         {"converges", kHeld}});
  // Two different Idempotency-Keys for one refund: the provider could not tell.
  EXPECT_THAT(FirstExample("refund-uuid", "one_delivery_per_key"),
              ::testing::ContainsRegex(
                  "refund-2026110[1-3]0[1-5] was delivered 2 times: delivery [0-9]+ \\(run 1 "
                  "attempt 1, Idempotency-Key [0-9a-f-]{36}\\); delivery"));
}

TEST_F(Catalogue, OrderState) {
  Expect(
      "order-state-conditional",
      {{"one_delivery_per_key", kHeld}, {"every_order_completed", kShown}, {"converges", kHeld}});
  Expect(
      "order-state-read-then-write",
      {{"one_delivery_per_key", kShown}, {"every_order_completed", kHeld}, {"converges", kHeld}});
  EXPECT_THAT(FirstExample("order-state-conditional", "every_order_completed"),
              HasSubstr("status=processing"));
}

TEST_F(Catalogue, Queue) {
  Expect("queue-ack-after-dedupe", {{"effect_once_per_message", kHeld},
                                    {"every_message_processed", kHeld},
                                    {"queue_drained", kHeld},
                                    {"converges", kHeld}});
  Expect("queue-ack-after", {{"effect_once_per_message", kShown},
                             {"every_message_processed", kHeld},
                             {"queue_drained", kHeld},
                             {"converges", kHeld}});
  Expect("queue-ack-before", {{"effect_once_per_message", kHeld},
                              {"every_message_processed", kShown},
                              {"queue_drained", kHeld},
                              {"converges", kHeld}});
}

TEST_F(Catalogue, LocksAgainstARerunOfYesterday) {
  for (const char* s : {"lock-lease", "lock-lease-fencing", "lock-flock"}) {
    Expect(s, {{"one_payout_per_date", kHeld}, {"every_date_paid", kHeld}, {"converges", kHeld}});
  }
  Expect("lock-lease-no-idempotency",
         {{"one_payout_per_date", kShown}, {"every_date_paid", kHeld}, {"converges", kHeld}});
  // A holder killed with the lease leaves it until its TTL (100 ms) runs out: the retry, a
  // moment later on the real clock, waits for it and says so (docs/faults.md, POST /wait).
  auto log = ReadHistoryLog(run_->dir / "catalogue-lock-lease" / "history.jsonl");
  ASSERT_TRUE(log) << log.error().message;
  int waits = 0;
  for (const auto& [trial, events] : log.value()) {
    for (const Event& e : events) {
      if (e.type != event::JobWait::kType) continue;
      ++waits;
      EXPECT_TRUE(e.data.value("acquired", false)) << e.data;
      EXPECT_LE(e.data.value("ms", 1000), 1000) << e.data;
      EXPECT_TRUE(e.data.value("held_by", "").starts_with("instance 1 pid ")) << e.data;
    }
  }
  // Only where the jobs start fast: under a sanitizer the retry's process takes longer than
  // the 100 ms TTL to reach the lock, finds the lease expired and takes it without a wait (seen
  // once in CI's ASan pass), which is right too: the waits seen are still checked above.
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  EXPECT_GE(waits, 1);
#endif
  EXPECT_THAT(FirstExample("lock-lease-no-idempotency", "one_payout_per_date"),
              ::testing::ContainsRegex("^a date was paid more than once: [0-9]+ rows? in lock.db, "
                                       "(first 3: )?biz_date=2026-11-0[1-3], n=[2-9]"));
}

// The harness's pause and overlap (docs/faults.md): a holder stopped past its lease's TTL while
// a second instance of the date runs.
TEST_F(Catalogue, LocksAgainstAPausedHolder) {
  Expect("lock-lease-paused-holder",
         {{"one_payout_per_date", kShown}, {"every_date_paid", kHeld}, {"converges", kHeld}});
  EXPECT_THAT(FirstExample("lock-lease-paused-holder", "one_payout_per_date"),
              ::testing::ContainsRegex("^a date was paid more than once: .*instances=(1,2|2,1)"));
  for (const char* s : {"lock-lease-fencing-paused-holder", "lock-flock-paused-holder"}) {
    Expect(s, {{"one_payout_per_date", kHeld}, {"every_date_paid", kHeld}, {"converges", kHeld}});
  }
}

// A live lease (TTL 60 s) against an instance started while the first holds it at a hold
// point, never killed there (docs/faults.md, hold_points): the second finds the lock and
// leaves. Without idempotency the same lock still lets a rerun of the date pay again.
TEST_F(Catalogue, LocksAgainstALiveOverlap) {
  Expect("lock-lease-live-overlap", {{"second_instance_never_pays", kHeld},
                                     {"one_payout_per_date", kHeld},
                                     {"every_date_paid", kHeld},
                                     {"converges", kHeld}});
  Expect("lock-lease-no-idempotency-overlap", {{"second_instance_never_pays", kHeld},
                                               {"one_payout_per_date", kShown},
                                               {"every_date_paid", kHeld},
                                               {"converges", kHeld}});
  EXPECT_THAT(FirstExample("lock-lease-no-idempotency-overlap", "one_payout_per_date"),
              ::testing::ContainsRegex("^a date was paid more than once: .*instances=1,1"));
  // The overlaps happened: every second instance met the held lease and exited busy (75),
  // and no attempt was killed (a hold point is never a crash point).
  for (const char* slug :
       {"catalogue-lock-lease-live-overlap", "catalogue-lock-lease-no-idempotency-overlap"}) {
    auto log = ReadHistoryLog(run_->dir / slug / "history.jsonl");
    ASSERT_TRUE(log) << log.error().message;
    int overlaps = 0, busy = 0, second_exits = 0, kills = 0, gave_up_waiting = 0;
    for (const auto& [trial, events] : log.value()) {
      for (const Event& e : events) {
        overlaps += e.type == event::Overlap::kType;
        kills += e.type == event::Kill::kType;
        // docs/faults.md: the second instance reported its wait for the first's lease.
        if (e.type == event::JobWait::kType && InstanceOf(e) == 2 &&
            !e.data.value("acquired", true) && e.data.value("ms", 0) > 0 &&
            e.data.value("held_by", "").starts_with("instance 1 ")) {
          ++gave_up_waiting;
        }
        if (e.type == event::Exit::kType && InstanceOf(e) == 2) {
          ++second_exits;
          busy += e.data.value("code", -1) == 75;
        }
      }
    }
    EXPECT_GE(overlaps, 6) << slug;
    EXPECT_EQ(second_exits, overlaps) << slug;
    EXPECT_EQ(busy, second_exits) << slug;
    EXPECT_EQ(gave_up_waiting, busy) << slug;
    EXPECT_EQ(kills, 0) << slug;
  }
}

TEST_F(Catalogue, OrderStateWithTwoInstancesAtOnce) {
  Expect(
      "order-state-conditional-overlap",
      {{"one_delivery_per_key", kHeld}, {"converges", kHeld}, {"every_order_completed", kShown}});
  Expect(
      "order-state-read-then-write-overlap",
      {{"one_delivery_per_key", kShown}, {"every_order_completed", kHeld}, {"converges", kHeld}});
}

// The catalogue on real servers (docs/catalogue.md, "On a real PostgreSQL" and after):
// scenarios/services/ in the same bundled run, one trial each (a server a worker, lent from
// scenario to scenario:
// docs/services.md), each fault planned with probability 1, so one trial shows the verdict.
TEST_F(Catalogue, OnRealServersEveryCorrectFormHoldsAndEveryBugShows) {
  int services = 0;
  for (const auto& s : run_->Results()["scenarios"]) {
    if (!s["name"].get<std::string>().starts_with("services/")) continue;
    ++services;
    EXPECT_EQ(s["trials"], 1) << s["name"];
    EXPECT_FALSE(s["must_hold_violated"].get<bool>()) << s.dump();
    for (const auto& i : s["invariants"]) {
      EXPECT_NE(i["status"], "expected, not demonstrated") << s["name"] << " " << i["name"];
      EXPECT_NE(i["status"], "NOT EXERCISED") << s["name"] << " " << i["name"];
    }
  }
  EXPECT_EQ(services, 29);
}

TEST_F(Catalogue, OnARealPostgres) {
  const std::map<std::string, std::string> upsert = {
      {"one_row_per_biz_date", kHeld}, {"amount_is_recomputed", kHeld}, {"converges", kHeld}};
  ExpectNamed("services/pg-settle-upsert", upsert);
  ExpectNamed(
      "services/pg-settle-insert",
      {{"one_row_per_biz_date", kShown}, {"amount_is_recomputed", kHeld}, {"converges", kHeld}});
  ExpectNamed("services/pg-ambiguous-commit-keyed",
              {{"one_row_per_biz_date", kHeld}, {"converges", kHeld}});
  ExpectNamed("services/pg-ambiguous-commit-naive",
              {{"one_row_per_biz_date", kShown}, {"converges", kHeld}});
  ExpectNamed(
      "services/pg-inventory-one-tx",
      {{"stock_matches_ledger", kHeld}, {"every_shipment_logged", kHeld}, {"converges", kHeld}});
  ExpectNamed(
      "services/pg-inventory-two-tx",
      {{"stock_matches_ledger", kShown}, {"every_shipment_logged", kHeld}, {"converges", kHeld}});
  // The decrement of 3 taken twice: 100 - 3 - 3 - 5 = 89, the ledger says 92.
  EXPECT_THAT(FirstExampleNamed("services/pg-inventory-two-tx", "stock_matches_ledger"),
              HasSubstr("sku=widget, qty=89, expected=92, dates=2026-11-01"));
  ExpectNamed(
      "services/pg-order-state-conditional-overlap",
      {{"one_delivery_per_key", kHeld}, {"every_order_completed", kHeld}, {"converges", kHeld}});
  ExpectNamed(
      "services/pg-order-state-read-then-write-overlap",
      {{"one_delivery_per_key", kShown}, {"every_order_completed", kHeld}, {"converges", kHeld}});
  EXPECT_THAT(
      FirstExampleNamed("services/pg-order-state-read-then-write-overlap", "one_delivery_per_key"),
      HasSubstr("fulfil-2026-11-01/1 was delivered 2 times"));
  ExpectNamed(
      "services/pg-queue-skip-locked",
      {{"one_payment_per_request", kHeld}, {"every_request_paid", kHeld}, {"converges", kHeld}});
  ExpectNamed(
      "services/pg-queue-ack-before",
      {{"one_payment_per_request", kHeld}, {"every_request_paid", kShown}, {"converges", kHeld}});
  ExpectNamed("services/pg-advisory-lock-overlap",
              {{"one_payout_per_date", kHeld}, {"every_date_paid", kHeld}, {"converges", kHeld}});
  ExpectNamed("services/pg-no-lock-overlap",
              {{"one_payout_per_date", kShown}, {"every_date_paid", kHeld}, {"converges", kHeld}});
  // Both instances paid: the overlapping one, then the held one.
  EXPECT_THAT(FirstExampleNamed("services/pg-no-lock-overlap", "one_payout_per_date"),
              HasSubstr("biz_date=2026-11-01, payouts=2, instances=2,1"));
}

TEST_F(Catalogue, OnARealMariadb) {
  ExpectNamed("services/mariadb-settle-by-date",
              {{"one_row_per_biz_date", kHeld}, {"converges", kHeld}});
  ExpectNamed("services/mariadb-settle-by-id",
              {{"one_row_per_biz_date", kShown}, {"converges", kHeld}});
}

TEST_F(Catalogue, OnARealRedis) {
  ExpectNamed("services/redis-lock-setnx", {{"one_payment_per_date", kHeld},
                                            {"no_lock_left", kShown},
                                            {"every_date_done", kShown},
                                            {"converges", kShown}});
  ExpectNamed("services/redis-lock-setnx-expire", {{"one_payment_per_date", kHeld},
                                                   {"lock_expires", kShown},
                                                   {"every_date_done", kShown},
                                                   {"converges", kShown}});
  ExpectNamed("services/redis-lock-set-nx-px", {{"one_payment_per_date", kHeld},
                                                {"lock_expires", kHeld},
                                                {"every_date_done", kHeld},
                                                {"converges", kHeld}});
  ExpectNamed("services/redis-lock-set-nx-px-paused", {{"one_payment_per_date", kShown},
                                                       {"lock_expires", kHeld},
                                                       {"every_date_done", kHeld},
                                                       {"converges", kHeld}});
  // Three instances (docs/faults.md): the first's plain DEL frees the second's lock for a third.
  ExpectNamed("services/redis-lock-plain-del", {{"one_payment_per_date", kShown},
                                                {"lock_expires", kHeld},
                                                {"every_date_done", kHeld},
                                                {"converges", kHeld}});
  EXPECT_THAT(FirstExampleNamed("services/redis-lock-plain-del", "one_payment_per_date"),
              ::testing::AllOf(HasSubstr("paid:2026-11-01:i2:"), HasSubstr("paid:2026-11-01:i3:")));
  ExpectNamed("services/redis-lock-compare-and-delete", {{"one_payment_per_date", kHeld},
                                                         {"lock_expires", kHeld},
                                                         {"every_date_done", kHeld},
                                                         {"converges", kHeld}});
  ExpectNamed("services/redis-idempotency-key-long-ttl",
              {{"one_payment_per_date", kHeld}, {"every_date_paid", kHeld}, {"converges", kHeld}});
  ExpectNamed("services/redis-idempotency-key-short-ttl",
              {{"one_payment_per_date", kShown}, {"every_date_paid", kHeld}, {"converges", kHeld}});
  EXPECT_THAT(FirstExampleNamed("services/redis-idempotency-key-short-ttl", "one_payment_per_date"),
              HasSubstr("2 keys matching 'paid:*'"));
  ExpectNamed("services/redis-idempotency-key-lost-answer-own-token",
              {{"one_payment_per_date", kHeld}, {"every_date_paid", kHeld}, {"converges", kHeld}});
  ExpectNamed("services/redis-idempotency-key-lost-answer-naive",
              {{"one_payment_per_date", kHeld}, {"every_date_paid", kShown}, {"converges", kHeld}});
  EXPECT_THAT(
      FirstExampleNamed("services/redis-idempotency-key-lost-answer-naive", "every_date_paid"),
      HasSubstr("0 keys matching 'paid:2026-11-01:*'"));
}

// The queue consumer's three forms and the broker restart's two, on one broker: the run's pool
// lends it from scenario to scenario (docs/services.md, "Isolation").
TEST_F(Catalogue, OnARealRabbitmq) {
  ExpectNamed("services/mq-consume-plain",
              {{"one_effect_per_message", kShown}, {"queue_drained", kHeld}, {"converges", kHeld}});
  EXPECT_THAT(FirstExampleNamed("services/mq-consume-plain", "one_effect_per_message"),
              HasSubstr("msg_id=2026-11-01/0, effects="));
  ExpectNamed("services/mq-consume-dedupe",
              {{"one_effect_per_message", kHeld}, {"queue_drained", kHeld}, {"converges", kHeld}});
  // auto_ack: the broker forgot the message once sent; killed before its effect, it is lost (the
  // second too when the broker had pushed it already: no prefetch limit for auto_ack).
  ExpectNamed("services/mq-auto-ack", {{"one_effect_per_message", kHeld},
                                       {"every_message_applied", kShown},
                                       {"queue_drained", kHeld},
                                       {"converges", kHeld}});
  EXPECT_THAT(FirstExampleNamed("services/mq-auto-ack", "every_message_applied"),
              HasSubstr("in effects.db, msg_id=2026-11-01/0, biz_date=2026-11-01"));
  // A kill -9 of the broker and its restart while the day's two messages wait: a transient queue
  // and its messages do not come back; a durable queue and its persistent messages, published
  // with confirms, all do (the harness settles what the setup declared first: docs/services.md,
  // "RabbitMQ").
  for (auto [scenario, lost] :
       {std::pair<std::string, int>{"services/mq-broker-restart-transient", 2},
        {"services/mq-broker-restart-durable", 0}}) {
    auto log = ReadHistoryLog(run_->dir / Slug(scenario) / "history.jsonl");
    ASSERT_TRUE(log) << log.error().message;
    std::vector<nlohmann::json> kills;
    for (const auto& [trial, events] : log.value()) {
      for (const Event& e : events) {
        if (e.type == event::ServerFault::kType) kills.push_back(e.data);
      }
    }
    ASSERT_EQ(kills.size(), 1u) << scenario;
    EXPECT_EQ(kills[0]["action"], "kill");
    EXPECT_EQ(kills[0]["before"], 2) << kills[0].dump();  // the day's two messages, ready
    EXPECT_EQ(kills[0]["lost"], lost) << kills[0].dump();
    EXPECT_GT(kills[0]["restart_ms"].get<int>(), 0);
  }
  ExpectNamed("services/mq-broker-restart-transient", {{"server_kill_loses_nothing", kShown},
                                                       {"every_message_applied", kShown},
                                                       {"one_effect_per_message", kHeld},
                                                       {"queue_drained", kHeld},
                                                       {"converges", kHeld}});
  EXPECT_THAT(
      FirstExampleNamed("services/mq-broker-restart-transient", "server_kill_loses_nothing"),
      HasSubstr("service mq (rabbitmq, durable) killed at before_consume#1, lost 2 of 2 rows or "
                "keys it held before the kill: settle: ready message 1; settle: ready message "
                "2"));
  ExpectNamed("services/mq-broker-restart-durable", {{"server_kill_loses_nothing", kHeld},
                                                     {"every_message_applied", kHeld},
                                                     {"one_effect_per_message", kHeld},
                                                     {"queue_drained", kHeld},
                                                     {"converges", kHeld}});
}

// docs/catalogue.md names every scenario of scenarios/services/ in its tables, and nothing
// that is not there.
TEST(CatalogueDocs, NamesEveryServiceScenario) {
  const fs::path source(KILLPOINT_SOURCE_DIR);
  const std::string doc = Slurp(source / "docs" / "catalogue.md");
  std::set<std::string> files;
  for (const auto& f : fs::directory_iterator(source / "scenarios" / "services")) {
    files.insert(f.path().stem().string());
    EXPECT_NE(doc.find("`" + f.path().stem().string() + "`"), std::string::npos)
        << "docs/catalogue.md does not name " << f.path();
  }
  EXPECT_EQ(files.size(), 29u);
  std::smatch m;
  for (auto it = doc.cbegin();
       std::regex_search(it, doc.cend(), m, std::regex("`((pg|mariadb|redis|mq)-[a-z0-9-]+)`"));
       it = m.suffix().first) {
    EXPECT_TRUE(files.count(m[1].str())) << "docs/catalogue.md names " << m[1] << ", not in "
                                         << "scenarios/services/";
  }
}

TEST_F(Catalogue, TheHtmlReportShowsEveryPatternAndItsOwnInvariants) {
  std::string html = Slurp(run_->dir / "report.html");
  for (const auto& s : run_->Results()["scenarios"]) {
    EXPECT_THAT(html, HasSubstr(s["name"].get<std::string>()));
  }
  for (const char* invariant :
       {"one_status_per_order", "stock_matches_shipments", "one_delivery_per_key",
        "every_order_completed", "effect_once_per_message", "one_payout_per_date"}) {
    EXPECT_THAT(html, HasSubstr(invariant));
  }
}

}  // namespace
}  // namespace killpoint::testing
