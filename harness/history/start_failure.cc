#include "history/start_failure.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "history/event_registry.h"
#include "history/history.h"

namespace killpoint {
namespace {

// Events that only a job that got going produces: a crash point, a fault at one, or a call to
// the downstream.
constexpr std::array<std::string_view, 16> kGotGoing = {
    event::Failpoint::kType,  event::Kill::kType,          event::Pause::kType,
    event::Overlap::kType,    event::CrashCheck::kType,    event::OutsideWrites::kType,
    event::Publish::kType,    event::Query::kType,         event::Alert::kType,
    event::BadRequest::kType, event::JobRetry::kType,      event::JobWait::kType,
    event::Timeout::kType,    event::PointsDropped::kType, event::NetFault::kType,
    event::ServerFault::kType};

bool GotGoing(const Event& e) {
  if (std::find(kGotGoing.begin(), kGotGoing.end(), e.type) != kGotGoing.end()) return true;
  auto passed = As<event::PointsPassed>(e);
  return passed && std::any_of(passed->points.begin(), passed->points.end(),
                               [](const auto& point) { return point.second > 0; });
}

}  // namespace

std::optional<StartFailure> StartFailureOf(const std::vector<Event>& events) {
  std::optional<StartFailure> out;
  for (const Event& e : events) {
    // Outside every attempt: the scenario's job.setup, whose file operations are crash points
    // passed by the setup, not by the job (issue 33).
    if (e.biz_date.empty()) continue;
    if (GotGoing(e)) return std::nullopt;
    if (e.type != event::Exit::kType) continue;
    const event::Exit exit = Read<event::Exit>(e);
    if (exit.killed_by_harness || exit.signal || exit.code == 0) return std::nullopt;
    if (!out) {
      out = StartFailure{exit.code, exit.stderr_tail};
    } else if (out->code != exit.code) {
      return std::nullopt;
    }
  }
  return out;
}

std::string StartFailureHint(int64_t code) {
  if (code == 127) return "127: command not found";
  if (code == 126) return "126: found but not executable";
  return "";
}

}  // namespace killpoint
