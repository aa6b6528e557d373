#include "reports/text_timeline.h"

#include <sstream>

namespace killpoint {
namespace {

std::string Fault(const nlohmann::json& f) {
  std::string out;
  std::string point = f.value("kill_point", "");
  if (!point.empty()) {
    std::string when = f.value("when", "before");
    out = "kill " + (when == "before" ? "" : when + ":") + point + "#" + std::to_string(f.value("occurrence", 1));
    std::string model = f.value("model", "process");
    if (model != "process") out += " (" + model + ")";
  }
  std::string downstream = f.value("downstream_fault", "");
  if (!downstream.empty()) out += (out.empty() ? "" : ", ") + std::string("downstream ") + downstream;
  return out.empty() ? "no fault" : out;
}

// The member `key` of `d` when it is an array or object; an empty one otherwise.
const nlohmann::json& Member(const nlohmann::json& d, const char* key) {
  static const nlohmann::json kEmpty = nlohmann::json::array();
  auto it = d.find(key);
  return it != d.end() && (it->is_array() || it->is_object()) ? *it : kEmpty;
}

std::string FirstLine(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  size_t nl = s.rfind('\n');
  return nl == std::string::npos ? s : s.substr(nl + 1);
}

// One line for an event, or "" for an event the timeline leaves out.
std::string Describe(const Event& e) {
  const nlohmann::json& d = e.data;
  if (!d.is_object()) return e.type;
  if (e.type == event::kSpawn) return "start (" + Fault(d.contains("fault") ? d["fault"] : nlohmann::json::object()) + ")";
  if (e.type == event::kFailpoint) {
    return "hit " + d.value("point", "") + " #" + std::to_string(d.value("hit", 1));
  }
  if (e.type == event::kPointsPassed) {
    int total = 0;
    for (const auto& n : Member(d, "points")) total += n.is_number() ? n.get<int>() : 0;
    return "passed " + std::to_string(total) + " syscall points (not armed)";
  }
  if (e.type == event::kKill) {
    std::string when = d.value("when", "before");
    return "KILL " + when + " " + d.value("point", "") + " #" + std::to_string(d.value("hit", 1)) + " (" +
           d.value("model", "process") + ")";
  }
  if (e.type == event::kExit) {
    std::string how = d.contains("signal") ? "killed by signal " + std::to_string(d.value("signal", 0))
                                           : "exit " + std::to_string(d.value("code", 0));
    std::string err = FirstLine(d.value("stderr", ""));
    return how + (err.empty() ? "" : ": " + err);
  }
  if (e.type == event::kRollback) {
    std::string out = "rollback (" + d.value("model", "") + ")";
    for (const auto& change : Member(d, "changes")) out += "\n      " + (change.is_string() ? change.get<std::string>() : change.dump());
    return out;
  }
  if (e.type == event::kTimeout) return "timeout after " + std::to_string(d.value("timeout_ms", 0)) + " ms";
  if (e.type == event::kRetryWait) return "retry in " + std::to_string(d.value("delay_ms", 0)) + " ms";
  if (e.type == event::kGiveUp) return "give up after " + std::to_string(d.value("attempts", 0)) + " attempts";
  if (e.type == event::kPublish) {
    std::string out = "publish " + d.value("key", "");
    if (d.contains("fault")) out += " [" + d.value("fault", "") + "]";
    if (!d.value("committed", false)) return out + (d.value("deduplicated", false) ? " -> deduplicated" : " -> not committed");
    return out + " -> delivery " + std::to_string(d.value("delivery_id", 0));
  }
  if (e.type == event::kQuery) return "query " + d.value("key", "") + " -> " + std::to_string(d.value("count", 0)) + " delivered";
  if (e.type == event::kAlert) return "ALERT " + d.value("key", "") + ": " + d.value("reason", "");
  if (e.type == event::kBadRequest) return "bad request " + d.value("path", "") + ": " + d.value("reason", "");
  if (e.type == event::kSetup) return "setup exit " + std::to_string(d.value("exit_code", 0));
  if (e.type == event::kFinalPass) {
    std::string dates;
    for (const auto& date : Member(d, "biz_dates")) dates += " " + (date.is_string() ? date.get<std::string>() : date.dump());
    return "final pass:" + (dates.empty() ? std::string(" nothing left to run") : dates);
  }
  return "";
}

}  // namespace

std::string RenderTextTimeline(const std::vector<Event>& events) {
  std::ostringstream out;
  std::string lane;
  for (const Event& e : events) {
    if (e.type == event::kTrialStart || e.type == event::kTrialEnd) continue;
    std::string line = Describe(e);
    if (line.empty()) continue;
    std::string this_lane = e.attempt == 0 ? "" : e.biz_date + " firing " + std::to_string(e.trigger) + " attempt " + std::to_string(e.attempt);
    if (this_lane != lane && !this_lane.empty()) {
      out << this_lane << "  (t=" << e.t_ms << " ms)\n";
    }
    lane = this_lane;
    out << (lane.empty() ? "  " : "    ") << line << "\n";
  }
  return out.str();
}

}  // namespace killpoint
