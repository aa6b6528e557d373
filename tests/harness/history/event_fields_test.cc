// Typed events (history/event_fields.h): what the recorder writes reads back typed, and a
// damaged history reads as the defaults, never as an exception.
#include "history/event_fields.h"

#include <gtest/gtest.h>

#include "history/event_registry.h"

namespace killpoint {
namespace {

Event Of(const char* type, nlohmann::json data) {
  return {0, 0, type, "2026-11-01", 1, 1, std::move(data)};
}

TEST(EventFields, AnExitReadsItsCodeSignalAndStderr) {
  event::Exit ok = Read<event::Exit>(
      Of(event::Exit::kType, {{"code", 0}, {"killed_by_harness", false}, {"stderr", "done\n"}}));
  EXPECT_TRUE(ok.Succeeded());
  EXPECT_EQ(ok.stderr_tail, "done\n");
  event::Exit killed = Read<event::Exit>(
      Of(event::Exit::kType, {{"code", 137}, {"killed_by_harness", true}, {"signal", 9}}));
  EXPECT_FALSE(killed.Succeeded());
  EXPECT_EQ(killed.signal, 9);
  EXPECT_EQ(killed.code, 137);
  EXPECT_EQ(killed.ExitCode(), -1);
  EXPECT_TRUE(killed.killed_by_harness);
  EXPECT_EQ(Read<event::Exit>(Of(event::Exit::kType, {{"code", 3}})).ExitCode(), 3);
}

TEST(EventFields, AKillReadsItsPointHitMomentAndModel) {
  event::Kill k = Read<event::Kill>(Of(
      event::Kill::kType, {{"point", "write:f"}, {"hit", 2}, {"when", "mid"}, {"model", "torn"}}));
  EXPECT_EQ(k.point, "write:f");
  EXPECT_EQ(k.hit, 2);
  EXPECT_EQ(k.when, Moment::kMid);
  EXPECT_EQ(k.model, PersistenceModel::kTorn);
  // Histories of before the moment or the model was recorded.
  event::Kill old =
      Read<event::Kill>(Of(event::Kill::kType, {{"point", "after_publish"}, {"hit", 1}}));
  EXPECT_EQ(old.when, Moment::kBefore);
  EXPECT_EQ(old.model, PersistenceModel::kProcess);
  EXPECT_FALSE(old.bytes || old.offset || old.kept);
  EXPECT_EQ(old.planned, std::nullopt);
  EXPECT_EQ(old.uncut, "");
}

TEST(EventFields, AMidKillReadsItsCut) {  // run/mid_cut.h
  event::Kill cut = Read<event::Kill>(Of(
      event::Kill::kType,
      {{"point", "write:f"}, {"when", "mid"}, {"bytes", 10000}, {"offset", 100}, {"kept", 3996}}));
  EXPECT_EQ(cut.bytes, 10000);
  EXPECT_EQ(cut.offset, 100);
  EXPECT_EQ(cut.kept, 3996);
  event::Kill uncut =
      Read<event::Kill>(Of(event::Kill::kType, {{"point", "write:f"},
                                                {"when", "before"},
                                                {"bytes", 118},
                                                {"planned", "mid"},
                                                {"uncut", "one_page"},
                                                {"kept", "many"}}));  // the wrong type: none
  EXPECT_EQ(uncut.when, Moment::kBefore);
  EXPECT_EQ(uncut.planned, Moment::kMid);
  EXPECT_EQ(uncut.uncut, "one_page");
  EXPECT_FALSE(uncut.offset);
  EXPECT_FALSE(uncut.kept);
}

TEST(EventFields, PublishRetryWaitBreakerAndJobRetryReadTheirFields) {
  event::Publish p = Read<event::Publish>(Of(event::Publish::kType, {{"key", "k"},
                                                                     {"committed", true},
                                                                     {"delivery_id", 4},
                                                                     {"idempotency_key", "i"},
                                                                     {"burst", 2},
                                                                     {"biz_date", "d"}}));
  EXPECT_EQ(p.key, "k");
  EXPECT_TRUE(p.committed);
  EXPECT_EQ(p.delivery_id, 4);
  EXPECT_EQ(p.idempotency_key, "i");
  EXPECT_EQ(p.burst, 2);
  EXPECT_EQ(p.biz_date, "d");
  event::RetryWait w = Read<event::RetryWait>(Of(
      event::RetryWait::kType, {{"delay_ms", 500}, {"next_attempt", 2}, {"reason", "rate_limit"}}));
  EXPECT_EQ(w.delay_ms, 500);
  EXPECT_EQ(w.next_attempt, 2);
  EXPECT_EQ(w.reason, WaitReason::kRateLimit);
  event::Breaker b =
      Read<event::Breaker>(Of(event::Breaker::kType, {{"from", "closed"}, {"to", "open"}}));
  EXPECT_EQ(b.from, "closed");
  EXPECT_EQ(b.to, "open");
  event::JobRetry r = Read<event::JobRetry>(Of(event::JobRetry::kType, {{"key", "k"},
                                                                        {"attempt", 2},
                                                                        {"backoff_ms", 100},
                                                                        {"delay_ms", 150},
                                                                        {"at_ms", 900},
                                                                        {"breaker", "half_open"}}));
  EXPECT_EQ(r.attempt, 2);
  EXPECT_EQ(r.backoff_ms, 100);
  EXPECT_EQ(r.delay_ms, 150);
  EXPECT_EQ(r.at_ms, 900);
  EXPECT_EQ(r.breaker, "half_open");
}

// A field of the wrong type reads as its default, as a missing one does: no exception escapes
// to whoever checks or draws the history.
TEST(EventFields, MistypedFieldsReadAsTheirDefaults) {
  event::Exit e = Read<event::Exit>(
      Of(event::Exit::kType, {{"code", "zero"}, {"stderr", 5}, {"killed_by_harness", "yes"}}));
  EXPECT_EQ(e.code, -1);
  EXPECT_FALSE(e.Succeeded());
  EXPECT_EQ(e.stderr_tail, "");
  EXPECT_FALSE(e.killed_by_harness);
  EXPECT_EQ(Read<event::Exit>(Of(event::Exit::kType, {{"code", 0.0}})).code,
            -1);  // a float is no exit code
  EXPECT_EQ(Read<event::Exit>(Of(event::Exit::kType, {{"code", 1e300}})).code, -1);
  EXPECT_EQ(Read<event::Exit>(Of(event::Exit::kType, {{"code", UINT64_MAX}})).code,
            -1);  // does not fit
  // An optional field of the wrong type reads as absent.
  EXPECT_FALSE(Read<event::Exit>(Of(event::Exit::kType, {{"code", 0}, {"signal", "KILL"}})).signal);
  event::Kill k =
      Read<event::Kill>(Of(event::Kill::kType, {{"point", 7}, {"hit", "2"}, {"model", "ext9"}}));
  EXPECT_EQ(k.point, "");
  EXPECT_EQ(k.hit, 0);
  EXPECT_EQ(k.model, std::nullopt);  // a model this killpoint does not know
  EXPECT_EQ(Read<event::Kill>(Of(event::Kill::kType, {{"model", 1}})).model, std::nullopt);
  event::Publish p = Read<event::Publish>(
      Of(event::Publish::kType, {{"committed", 1}, {"delivery_id", "4"}, {"key", nullptr}}));
  EXPECT_FALSE(p.committed);
  EXPECT_EQ(p.delivery_id, 0);
  EXPECT_EQ(p.key, "");
  EXPECT_EQ(Read<event::RetryWait>(Of(event::RetryWait::kType, {{"reason", false}})).reason,
            WaitReason::kBackoff);
  EXPECT_EQ(Read<event::RetryWait>(Of(event::RetryWait::kType, {{"reason", "nap"}})).reason,
            WaitReason::kBackoff);
  event::JobRetry r =
      Read<event::JobRetry>(Of(event::JobRetry::kType, {{"backoff_ms", "x"}, {"breaker", 3}}));
  EXPECT_EQ(r.backoff_ms, -1);
  EXPECT_EQ(r.breaker, "closed");
  event::CrashCheck c = Read<event::CrashCheck>(
      Of(event::CrashCheck::kType, {{"verdicts", "none"}, {"model", "power"}}));
  EXPECT_TRUE(c.verdicts.is_array() && c.verdicts.empty());
  EXPECT_EQ(c.model, PersistenceModel::kPower);
  EXPECT_EQ(c.point, "?");
}

TEST(EventFields, DataThatIsNoObjectReadsAsEmpty) {
  for (nlohmann::json data :
       {nlohmann::json::array({1, 2}), nlohmann::json("x"), nlohmann::json(nullptr)}) {
    EXPECT_EQ(Read<event::Exit>(Of(event::Exit::kType, data)).code, -1) << data;
    EXPECT_EQ(Read<event::Kill>(Of(event::Kill::kType, data)).point, "") << data;
    EXPECT_FALSE(Read<event::Publish>(Of(event::Publish::kType, data)).committed) << data;
  }
}

}  // namespace
}  // namespace killpoint
