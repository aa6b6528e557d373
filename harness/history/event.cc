#include "history/event.h"

namespace killpoint {

void to_json(nlohmann::json& j, const Event& e) {
  j = {{"seq", e.seq}, {"t_ms", e.t_ms}, {"type", e.type}};
  if (!e.biz_date.empty()) j["biz_date"] = e.biz_date;
  if (e.trigger) j["trigger"] = e.trigger;
  if (e.attempt) j["attempt"] = e.attempt;
  if (!e.data.empty()) j["data"] = e.data;
}

void from_json(const nlohmann::json& j, Event& e) {
  e.seq = j.at("seq").get<int64_t>();
  e.t_ms = j.at("t_ms").get<int64_t>();
  e.type = j.at("type").get<std::string>();
  e.biz_date = j.value("biz_date", "");
  e.trigger = j.value("trigger", 0);
  e.attempt = j.value("attempt", 0);
  e.data = j.value("data", nlohmann::json::object());
}

std::ostream& operator<<(std::ostream& os, const Event& e) {
  nlohmann::json j = e;
  return os << j.dump();
}

}  // namespace killpoint
