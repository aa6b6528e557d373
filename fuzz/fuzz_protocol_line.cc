// The failpoint protocol line reader: any bytes from a job. A line it accepts has a valid
// name and prints back to a line that parses to the same hit.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "channel/protocol_line.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view line(reinterpret_cast<const char*>(data), size);
  auto hit = killpoint::ParseProtocolLine(line);
  if (!hit) return 0;
  KP_FUZZ_CHECK(!hit->name.empty());
  KP_FUZZ_CHECK(hit->name.find(' ') == std::string::npos &&
                hit->name.find('\n') == std::string::npos);
  KP_FUZZ_CHECK(!(hit->done && hit->seen));
  KP_FUZZ_CHECK(hit->pid >= 0 && hit->bytes >= -1);
  std::string again = std::string(hit->done   ? "DONE "
                                  : hit->seen ? "SEEN "
                                              : "HIT ") +
                      hit->name + " " + std::to_string(hit->pid);
  if (hit->bytes >= 0) again += " " + std::to_string(hit->bytes);
  auto reparsed = killpoint::ParseProtocolLine(again);
  KP_FUZZ_CHECK(reparsed && reparsed->name == hit->name && reparsed->pid == hit->pid &&
                reparsed->bytes == hit->bytes && reparsed->done == hit->done &&
                reparsed->seen == hit->seen);
  return 0;
}
