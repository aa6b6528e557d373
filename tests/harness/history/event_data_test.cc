// The typed views of event data (history/event_data.h): what the recorder writes reads back
// typed, and a damaged history reads as the defaults, never as an exception.
#include "history/event_data.h"

#include <gtest/gtest.h>

namespace killpoint {
namespace {

Event Of(const char* type, nlohmann::json data) {
  return {0, 0, type, "2026-11-01", 1, 1, std::move(data)};
}

TEST(EventData, AnExitReadsItsCodeSignalAndStderr) {
  ExitData ok =
      ExitOf(Of(event::kExit, {{"code", 0}, {"killed_by_harness", false}, {"stderr", "done\n"}}));
  EXPECT_TRUE(ok.Succeeded());
  EXPECT_EQ(ok.stderr_tail, "done\n");
  ExitData killed =
      ExitOf(Of(event::kExit, {{"code", 137}, {"killed_by_harness", true}, {"signal", 9}}));
  EXPECT_FALSE(killed.Succeeded());
  EXPECT_EQ(killed.signal, 9);
  EXPECT_EQ(killed.code, 137);
  EXPECT_EQ(killed.ExitCode(), -1);
  EXPECT_TRUE(killed.killed_by_harness);
  EXPECT_EQ(ExitOf(Of(event::kExit, {{"code", 3}})).ExitCode(), 3);
}

TEST(EventData, AKillReadsItsPointHitMomentAndModel) {
  KillData k = KillOf(
      Of(event::kKill, {{"point", "write:f"}, {"hit", 2}, {"when", "mid"}, {"model", "torn"}}));
  EXPECT_EQ(k.point, "write:f");
  EXPECT_EQ(k.hit, 2);
  EXPECT_EQ(k.when, "mid");
  EXPECT_EQ(k.model, PersistenceModel::kTorn);
  // Histories of before the moment or the model was recorded.
  KillData old = KillOf(Of(event::kKill, {{"point", "after_publish"}, {"hit", 1}}));
  EXPECT_EQ(old.when, "before");
  EXPECT_EQ(old.model, PersistenceModel::kProcess);
  EXPECT_FALSE(old.bytes || old.offset || old.kept);
  EXPECT_EQ(old.planned, "");
  EXPECT_EQ(old.uncut, "");
}

TEST(EventData, AMidKillReadsItsCut) {  // run/mid_cut.h
  KillData cut = KillOf(Of(
      event::kKill,
      {{"point", "write:f"}, {"when", "mid"}, {"bytes", 10000}, {"offset", 100}, {"kept", 3996}}));
  EXPECT_EQ(cut.bytes, 10000);
  EXPECT_EQ(cut.offset, 100);
  EXPECT_EQ(cut.kept, 3996);
  KillData uncut = KillOf(Of(event::kKill, {{"point", "write:f"},
                                            {"when", "before"},
                                            {"bytes", 118},
                                            {"planned", "mid"},
                                            {"uncut", "one_page"},
                                            {"kept", "many"}}));  // the wrong type: none
  EXPECT_EQ(uncut.when, "before");
  EXPECT_EQ(uncut.planned, "mid");
  EXPECT_EQ(uncut.uncut, "one_page");
  EXPECT_FALSE(uncut.offset);
  EXPECT_FALSE(uncut.kept);
}

TEST(EventData, PublishRetryWaitBreakerAndJobRetryReadTheirFields) {
  PublishData p = PublishOf(Of(event::kPublish, {{"key", "k"},
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
  RetryWaitData w = RetryWaitOf(
      Of(event::kRetryWait, {{"delay_ms", 500}, {"next_attempt", 2}, {"reason", "rate_limit"}}));
  EXPECT_EQ(w.delay_ms, 500);
  EXPECT_EQ(w.next_attempt, 2);
  EXPECT_EQ(w.reason, "rate_limit");
  BreakerData b = BreakerOf(Of(event::kBreaker, {{"from", "closed"}, {"to", "open"}}));
  EXPECT_EQ(b.from, "closed");
  EXPECT_EQ(b.to, "open");
  JobRetryData r = JobRetryOf(Of(event::kJobRetry, {{"key", "k"},
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
TEST(EventData, MistypedFieldsReadAsTheirDefaults) {
  ExitData e =
      ExitOf(Of(event::kExit, {{"code", "zero"}, {"stderr", 5}, {"killed_by_harness", "yes"}}));
  EXPECT_EQ(e.code, -1);
  EXPECT_FALSE(e.Succeeded());
  EXPECT_EQ(e.stderr_tail, "");
  EXPECT_FALSE(e.killed_by_harness);
  EXPECT_EQ(ExitOf(Of(event::kExit, {{"code", 0.0}})).code, -1);  // a float is no exit code
  EXPECT_EQ(ExitOf(Of(event::kExit, {{"code", 1e300}})).code, -1);
  EXPECT_EQ(ExitOf(Of(event::kExit, {{"code", UINT64_MAX}})).code, -1);  // does not fit
  EXPECT_TRUE(
      ExitOf(Of(event::kExit, {{"code", 0}, {"signal", "KILL"}})).signal);  // a signal all the same
  KillData k = KillOf(Of(event::kKill, {{"point", 7}, {"hit", "2"}, {"model", "ext9"}}));
  EXPECT_EQ(k.point, "");
  EXPECT_EQ(k.hit, 0);
  EXPECT_EQ(k.model, std::nullopt);  // a model this killpoint does not know
  EXPECT_EQ(KillOf(Of(event::kKill, {{"model", 1}})).model, std::nullopt);
  PublishData p =
      PublishOf(Of(event::kPublish, {{"committed", 1}, {"delivery_id", "4"}, {"key", nullptr}}));
  EXPECT_FALSE(p.committed);
  EXPECT_EQ(p.delivery_id, 0);
  EXPECT_EQ(p.key, "");
  EXPECT_EQ(RetryWaitOf(Of(event::kRetryWait, {{"reason", false}})).reason, "backoff");
  JobRetryData r = JobRetryOf(Of(event::kJobRetry, {{"backoff_ms", "x"}, {"breaker", 3}}));
  EXPECT_EQ(r.backoff_ms, -1);
  EXPECT_EQ(r.breaker, "closed");
  CrashCheckData c =
      CrashCheckOf(Of(event::kCrashCheck, {{"verdicts", "none"}, {"model", "power"}}));
  EXPECT_TRUE(c.verdicts.is_array() && c.verdicts.empty());
  EXPECT_EQ(c.model, PersistenceModel::kPower);
  EXPECT_EQ(c.point, "?");
}

TEST(EventData, DataThatIsNoObjectReadsAsEmpty) {
  for (nlohmann::json data :
       {nlohmann::json::array({1, 2}), nlohmann::json("x"), nlohmann::json(nullptr)}) {
    EXPECT_EQ(ExitOf(Of(event::kExit, data)).code, -1) << data;
    EXPECT_EQ(KillOf(Of(event::kKill, data)).point, "") << data;
    EXPECT_FALSE(PublishOf(Of(event::kPublish, data)).committed) << data;
  }
}

}  // namespace
}  // namespace killpoint
