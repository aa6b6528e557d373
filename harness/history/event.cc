#include "history/event.h"

#include <limits>

namespace killpoint {

int InstanceOf(const Event& e) {
  auto it = e.data.find("instance");
  return it != e.data.end() && it->is_number_integer() ? it->get<int>() : 1;
}

void to_json(nlohmann::json& j, const Event& e) {
  j = {{"seq", e.seq}, {"t_ms", e.t_ms}, {"type", e.type}};
  if (!e.biz_date.empty()) j["biz_date"] = e.biz_date;
  if (e.trigger) j["trigger"] = e.trigger;
  if (e.attempt) j["attempt"] = e.attempt;
  if (!e.data.empty()) j["data"] = e.data;
}

namespace {

// An integer field within [min, max]. nlohmann's get<int>() would convert 1e300 or 2^40
// without a check (a float-to-int overflow is undefined behaviour): a damaged journal must
// be an error, never a wrong number.
int64_t CheckedInt(const nlohmann::json& j, const char* key, int64_t min, int64_t max,
                   const int64_t* fallback) {
  auto it = j.find(key);
  if (it == j.end()) {
    if (fallback) return *fallback;
    throw nlohmann::json::out_of_range::create(403, std::string("key '") + key + "' not found", &j);
  }
  bool fits = (it->is_number_integer() && !it->is_number_unsigned()) ||
              (it->is_number_unsigned() && it->get<uint64_t>() <= static_cast<uint64_t>(max));
  int64_t v = fits ? it->get<int64_t>() : 0;
  if (!fits || v < min || v > max) {
    throw nlohmann::json::type_error::create(302,
                                             std::string(key) + " must be an integer from " +
                                                 std::to_string(min) + " to " + std::to_string(max),
                                             &j);
  }
  return v;
}

constexpr int64_t kIntMax = std::numeric_limits<int>::max();
constexpr int64_t kZero = 0;

}  // namespace

int TrialOfJournalLine(const nlohmann::json& j) {
  if (!j.is_object())
    throw nlohmann::json::type_error::create(302, "a history line must be an object", &j);
  return static_cast<int>(CheckedInt(j, "trial", 0, kIntMax, nullptr));
}

void from_json(const nlohmann::json& j, Event& e) {
  if (!j.is_object())
    throw nlohmann::json::type_error::create(302, "an event must be an object", &j);
  e.seq = CheckedInt(j, "seq", 0, std::numeric_limits<int64_t>::max(), nullptr);
  e.t_ms = CheckedInt(j, "t_ms", 0, std::numeric_limits<int64_t>::max(), nullptr);
  e.type = j.at("type").get<std::string>();
  e.biz_date = j.value("biz_date", "");
  e.trigger = static_cast<int>(CheckedInt(j, "trigger", 0, kIntMax, &kZero));
  e.attempt = static_cast<int>(CheckedInt(j, "attempt", 0, kIntMax, &kZero));
  e.data = j.value("data", nlohmann::json::object());
}

std::ostream& operator<<(std::ostream& os, const Event& e) {
  nlohmann::json j = e;
  return os << j.dump();
}

}  // namespace killpoint
