// The history journal reader (history.jsonl, one event a line): a damaged journal is an error
// naming the line, never a crash; what it reads writes back to a journal that reads the same.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.h"
#include "history/history_log.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto log = killpoint::ParseHistoryLog(text, "fuzz.jsonl");
  if (!log) {
    KP_FUZZ_CHECK(log.error().kind == killpoint::ErrorKind::kBadInput);
    return 0;
  }
  std::string written;
  for (const auto& [trial, events] : log.value())
    written += killpoint::FormatTrialHistory(trial, events);
  auto again = killpoint::ParseHistoryLog(written, "again.jsonl");
  KP_FUZZ_CHECK(again);
  KP_FUZZ_CHECK(again.value().size() == log.value().size());
  for (const auto& [trial, events] : log.value()) {
    KP_FUZZ_CHECK(again.value().count(trial) && again.value().at(trial).size() == events.size());
  }
  return 0;
}
