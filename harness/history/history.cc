#include "history/history.h"

namespace killpoint {

void History::SetContext(Context c) {
  std::lock_guard lock(mu_);
  context_ = std::move(c);
}

void History::AdvanceClock(int64_t ms) {
  std::lock_guard lock(mu_);
  clock_ms_ += ms;
}

int64_t History::Now() const {
  std::lock_guard lock(mu_);
  return clock_ms_;
}

int64_t History::Add(std::string type, nlohmann::json data) {
  std::lock_guard lock(mu_);
  Event e;
  e.seq = static_cast<int64_t>(events_.size());
  e.t_ms = clock_ms_;
  e.type = std::move(type);
  e.biz_date = context_.biz_date;
  e.trigger = context_.trigger;
  e.attempt = context_.attempt;
  e.data = std::move(data);
  events_.push_back(std::move(e));
  return events_.back().seq;
}

std::vector<Event> History::Events() const {
  std::lock_guard lock(mu_);
  return events_;
}

std::vector<Event> OfType(const std::vector<Event>& events, const std::string& type) {
  std::vector<Event> out;
  for (const auto& e : events) {
    if (e.type == type) out.push_back(e);
  }
  return out;
}

}  // namespace killpoint
