// The scenario parser from text: never throws or crashes, and every error is one printable
// line naming the file, as the CLI prints it.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.h"
#include "scenario/scenario_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto s = killpoint::ParseScenario(text, "fuzz.json");
  if (s) {
    KP_FUZZ_CHECK(!s.value().name.empty());
    KP_FUZZ_CHECK(!s.value().job.command.empty() && !s.value().job.command[0].empty());
    KP_FUZZ_CHECK(!s.value().dates.empty());
    KP_FUZZ_CHECK(s.value().retry.max_attempts >= 1);
    // Parsing is a function of the text.
    auto again = killpoint::ParseScenario(text, "fuzz.json");
    KP_FUZZ_CHECK(again && again.value() == s.value());
    return 0;
  }
  const std::string& m = s.error().message;
  KP_FUZZ_CHECK(s.error().kind == killpoint::ErrorKind::kBadInput);
  KP_FUZZ_CHECK(m.rfind("fuzz.json: ", 0) == 0);
  KP_FUZZ_CHECK(m.size() <= 1100);
  for (char c : m) KP_FUZZ_CHECK(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f);
  return 0;
}
