#include "reports/text_timeline.h"

#include <fmt/format.h>

#include "reports/timeline.h"
#include "util/printable.h"

namespace killpoint {
namespace {

std::string LastLine(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  size_t nl = s.rfind('\n');
  return nl == std::string::npos ? s : s.substr(nl + 1);
}

}  // namespace

std::string RenderTextTimeline(const std::vector<Event>& events, const TimelineOptions& options) {
  Timeline t = BuildTimeline(events, options);
  std::string out;
  for (const Lane& lane : t.lanes) {
    if (lane.wait_before_ms >= 0)
      out += fmt::format("  (retry after {} ms)\n", lane.wait_before_ms);
    out += fmt::format("{}  t={} ms\n", lane.Title(), lane.start_ms);
    for (const Mark& m : lane.marks) {
      bool loud =
          m.kind == MarkKind::kKill || m.kind == MarkKind::kDuplicate || m.kind == MarkKind::kAlert;
      out += fmt::format("    {}{}\n", loud ? "! " : "", m.detail);
    }
    std::string err = Printable(LastLine(lane.stderr_tail));
    out +=
        fmt::format("    -> {}{}{}\n", lane.outcome, lane.gave_up ? ", the scheduler gave up" : "",
                    err.empty() ? "" : " | stderr: " + err);
  }
  for (const std::string& note : t.notes) out += "  " + note + "\n";
  if (!t.final_state.empty()) out += "final state:\n";
  for (const std::string& line : t.final_state) out += "  " + line + "\n";
  return out;
}

}  // namespace killpoint
