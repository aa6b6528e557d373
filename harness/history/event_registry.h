// Every event type a history holds, one line each. A new event type is a struct in
// history/events/ (its kType, fields and kFields) and a line here; the registry's tests
// (tests/harness/history/event_registry_test.cc) then check that its name is unique and that its
// data reads back as it was written, leniently when damaged.
#pragma once

#include <array>
#include <string_view>
#include <tuple>

#include "history/events/attempt.h"
#include "history/events/downstream.h"
#include "history/events/holds.h"
#include "history/events/retry.h"
#include "history/events/services.h"
#include "history/events/trial.h"

namespace killpoint {

using EventTypes = std::tuple<  //
    event::TrialStart, event::Setup, event::FinalPass, event::TrialEnd,
    // an attempt
    event::Spawn, event::Exit, event::Timeout, event::Failpoint, event::PointsPassed,
    event::PointsDropped, event::OutsideWrites, event::Refused, event::Kill, event::Rollback,
    event::CrashCheck, event::PeerRefused,
    // retries
    event::RetryWait, event::Breaker, event::NonRetryable, event::GiveUp, event::JobRetry,
    event::JobWait,
    // the downstream
    event::Publish, event::Query, event::Alert, event::BadRequest,
    // pauses and overlaps
    event::Pause, event::Resume, event::Overlap, event::OverlapEnd, event::SecondHeld,
    event::SecondRelease,
    // services
    event::NetFault, event::ServerFault, event::ServerResume>;

template <class Types>
struct EventTypeNamesOf;
template <class... T>
struct EventTypeNamesOf<std::tuple<T...>> {
  static constexpr std::array<std::string_view, sizeof...(T)> kNames{T::kType...};
};

// The names of the registered types, in the registry's order.
inline constexpr auto kEventTypeNames = EventTypeNamesOf<EventTypes>::kNames;

// Whether `type` is a registered event type's name.
constexpr bool IsEventType(std::string_view type) {
  for (std::string_view name : kEventTypeNames) {
    if (name == type) return true;
  }
  return false;
}

constexpr bool EventTypeNamesUnique() {
  for (size_t i = 0; i < kEventTypeNames.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (kEventTypeNames[i] == kEventTypeNames[j]) return false;
    }
  }
  return true;
}
static_assert(EventTypeNamesUnique(), "two event types in EventTypes share a name");

template <class F, class... T>
bool VisitEventAs(const Event& e, F& f, std::tuple<T...>*) {
  return ((e.type == T::kType ? (f(Read<T>(e)), true) : false) || ...);
}

// Calls f with `e` read as its registered type (f needs an overload, or a template, for every
// registered type). False, and f not called, for a type the registry does not know.
template <class F>
bool Visit(const Event& e, F&& f) {
  return VisitEventAs(e, f, static_cast<EventTypes*>(nullptr));
}

}  // namespace killpoint
