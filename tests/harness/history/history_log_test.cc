#include "history/history_log.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "history/event_registry.h"
#include "history/history.h"
#include "util/atomic_file.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;

fs::path TempFile(const std::string& name) {
  fs::path p =
      fs::temp_directory_path() / ("kp-history-" + std::to_string(::getpid()) + "-" + name);
  fs::remove(p);
  return p;
}

std::vector<Event> SomeEvents() {
  History h;
  h.Add(event::TrialStart::kType);
  h.SetContext({"2026-11-01", 1, 1});
  h.Add(event::Failpoint::kType, {{"point", "after_publish"}, {"hit", 1}});
  h.AdvanceClock(1000);
  h.Add(event::Exit::kType, {{"code", 137}, {"stderr", "<script>\"\n"}});
  return h.Events();
}

TEST(History, TagsEventsWithContextClockAndOrder) {
  auto events = SomeEvents();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].biz_date, "");
  EXPECT_EQ(events[1].biz_date, "2026-11-01");
  EXPECT_EQ(events[1].attempt, 1);
  EXPECT_EQ(events[2].t_ms, 1000);
  EXPECT_EQ(events[2].seq, 2);
}

TEST(HistoryLog, RoundTripsTrials) {
  fs::path log = TempFile("roundtrip.jsonl");
  auto events = SomeEvents();
  ASSERT_TRUE(AppendTrialHistory(log, 0, events));
  ASSERT_TRUE(AppendTrialHistory(log, 1, events));
  auto read = ReadHistoryLog(log);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read.value().size(), 2u);
  EXPECT_EQ(read.value().at(1), events);
  fs::remove(log);
}

TEST(HistoryLog, DropsATornLastLineOnly) {
  fs::path log = TempFile("torn.jsonl");
  auto events = SomeEvents();
  ASSERT_TRUE(AppendTrialHistory(log, 0, events));
  std::string torn = FormatTrialHistory(1, events);
  ASSERT_TRUE(AppendDurably(log, torn.substr(0, torn.size() / 2)));
  auto read = ReadHistoryLog(log);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read.value().at(0), events);
  // Trial 1's complete lines before the tear are kept; its torn line is not.
  EXPECT_LT(read.value()[1].size(), events.size());
  fs::remove(log);
}

TEST(HistoryLog, RejectsAGarbledLineWithItsNumber) {
  fs::path log = TempFile("garbled.jsonl");
  std::ofstream(log) << FormatTrialHistory(0, SomeEvents()) << "{not json\n";
  auto read = ReadHistoryLog(log);
  ASSERT_FALSE(read);
  EXPECT_THAT(read.error().message, ::testing::HasSubstr(":4: not a history event"));
  fs::remove(log);
}

TEST(AtomicFile, ReplacesWholeAndLeavesNoTemporary) {
  fs::path f = TempFile("atomic.json");
  ASSERT_TRUE(WriteFileAtomically(f, "first"));
  ASSERT_TRUE(WriteFileAtomically(f, "second"));
  EXPECT_EQ(ReadFile(f).value(), "second");
  for (const auto& e : fs::directory_iterator(f.parent_path())) {
    EXPECT_EQ(e.path().string().find(f.filename().string() + ".tmp"), std::string::npos)
        << e.path();
  }
  fs::remove(f);
}

// Found by fuzz/fuzz_history.cc: get<int>() converted 1e300 (undefined behaviour) and 2^32+1
// (silently wrapped) instead of rejecting the line.
TEST(HistoryLog, RejectsNumbersOutOfRange) {
  for (const char* line :
       {R"({"seq":0,"t_ms":0,"type":"x","trial":1e300})",
        R"({"seq":0,"t_ms":0,"type":"x","trial":0,"attempt":4294967297})",
        R"({"seq":-1,"t_ms":0,"type":"x","trial":0})",
        R"({"seq":0,"t_ms":1.5,"type":"x","trial":0})",
        R"({"seq":0,"t_ms":0,"type":"x","trial":18446744073709551615})", R"([1,2])", R"("x")"}) {
    auto r = ParseHistoryLog(std::string(line) + "\n", "h.jsonl");
    ASSERT_FALSE(r) << line;
    EXPECT_THAT(r.error().message, ::testing::HasSubstr("h.jsonl:1: not a history event")) << line;
  }
}

TEST(HistoryLog, ParsesTextLikeTheFile) {
  std::string text = FormatTrialHistory(3, SomeEvents()) + R"({"seq":9,"t_ms":0,"type":"tor)";
  auto r = ParseHistoryLog(text, "mem");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r.value().at(3), SomeEvents());
}

}  // namespace
}  // namespace killpoint
