// The append-only history of one trial. Thread-safe: the runner and the downstream
// service's threads add events concurrently; Add assigns the order.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "history/event.h"
#include "history/event_fields.h"

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

  // Adds a typed event (history/events/) tagged with the current context and clock. Returns
  // its seq.
  template <class T>
  requires requires { T::kType, T::kFields; }
  int64_t Add(const T& typed) { return Add(T::kType, DataOf(typed)); }
  // The same for an event given by its type's name and its data (history/event_registry.h).
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

// Events of type T, in order, read as T.
template <class T>
std::vector<T> AllOf(const std::vector<Event>& events) {
  std::vector<T> out;
  for (const Event& e : events) {
    if (Is<T>(e)) out.push_back(Read<T>(e));
  }
  return out;
}

}  // namespace killpoint
