// The append-only history of one trial. Thread-safe: the runner and the downstream
// service's threads add events concurrently; Add assigns the order.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "history/event.h"

namespace killpoint {

class History {
 public:
  // Which run and attempt is current; events added without their own tags inherit these.
  struct Context {
    std::string biz_date;
    int trigger = 0;
    int attempt = 0;
  };

  void SetContext(Context c);
  void AdvanceClock(int64_t ms);
  int64_t Now() const;

  // Adds an event tagged with the current context and clock. Returns its seq.
  int64_t Add(std::string type, nlohmann::json data = nlohmann::json::object());

  std::vector<Event> Events() const;

 private:
  mutable std::mutex mu_;
  Context context_;            // guarded by mu_
  int64_t clock_ms_ = 0;       // guarded by mu_
  std::vector<Event> events_;  // guarded by mu_
};

// Events of one type, in order.
std::vector<Event> OfType(const std::vector<Event>& events, const std::string& type);

}  // namespace killpoint
