#include "history/start_failure.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "history/event_data.h"

namespace killpoint {
namespace {

// Events that only a job that got going produces: a crash point, a fault at one, or a call to
// the downstream.
constexpr std::array<std::string_view, 16> kGotGoing = {
    event::kFailpoint,  event::kKill,          event::kPause,    event::kOverlap,
    event::kCrashCheck, event::kOutsideWrites, event::kPublish,  event::kQuery,
    event::kAlert,      event::kBadRequest,    event::kJobRetry, event::kJobWait,
    event::kTimeout,    event::kPointsDropped, event::kNetFault, event::kServerFault};

bool GotGoing(const Event& e) {
  if (std::find(kGotGoing.begin(), kGotGoing.end(), e.type) != kGotGoing.end()) return true;
  if (e.type != event::kPointsPassed) return false;
  const nlohmann::json& points = e.data.contains("points") ? e.data["points"] : nlohmann::json{};
  if (!points.is_object()) return false;
  return std::any_of(points.begin(), points.end(),
                     [](const nlohmann::json& n) { return !n.is_number() || n.get<double>() > 0; });
}

}  // namespace

std::optional<StartFailure> StartFailureOf(const std::vector<Event>& events) {
  std::optional<StartFailure> out;
  for (const Event& e : events) {
    // Outside every attempt: the scenario's job.setup, whose file operations are crash points
    // passed by the setup, not by the job (issue 33).
    if (e.biz_date.empty()) continue;
    if (GotGoing(e)) return std::nullopt;
    if (e.type != event::kExit) continue;
    const ExitData exit = ExitOf(e);
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
