// Pauses and overlaps (docs/faults.md). The second instance of an overlap runs in the same
// attempt: its spawn, exit, failpoint and points_passed events carry instance 2 (a third's 3).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>

#include "history/event_fields.h"

namespace killpoint::event {

// SIGSTOP at a point, for duration_ms of real time.
struct Pause {
  static constexpr const char* kType = "pause";
  std::string point;
  int64_t hit = 0;
  int64_t duration_ms = 0;
  static constexpr auto kFields =
      std::tuple{Field("point", &Pause::point), Field("hit", &Pause::hit),
                 Field("duration_ms", &Pause::duration_ms)};
  bool operator==(const Pause&) const = default;
};

// SIGCONT: the paused attempt goes on.
struct Resume {
  static constexpr const char* kType = "resume";
  std::string point;
  static constexpr auto kFields = std::tuple{Field("point", &Resume::point)};
  bool operator==(const Resume&) const = default;
};

// The first instance is held at a point and a second instance of the date starts.
struct Overlap {
  static constexpr const char* kType = "overlap";
  std::string point;
  int64_t hold_ms = 0;
  std::string second_holds_at;  // three instances: where the second is held
  static constexpr auto kFields =
      std::tuple{Field("point", &Overlap::point), Field("hold_ms", &Overlap::hold_ms),
                 Field("second_holds_at", &Overlap::second_holds_at, kOmitEmpty)};
  bool operator==(const Overlap&) const = default;
};

// The first instance is let go of.
struct OverlapEnd {
  static constexpr const char* kType = "overlap_end";
  std::string point;
  bool second_exited = false;       // before hold_ms ran out
  std::optional<bool> second_held;  // with second_holds_at: whether the second is held there
  static constexpr auto kFields = std::tuple{Field("point", &OverlapEnd::point),
                                             Field("second_exited", &OverlapEnd::second_exited),
                                             Field("second_held", &OverlapEnd::second_held)};
  bool operator==(const OverlapEnd&) const = default;
};

// Three instances: the second is held at second_holds_at...
struct SecondHeld {
  static constexpr const char* kType = "second_held";
  std::string point;
  std::optional<int> instance;
  static constexpr auto kFields =
      std::tuple{Field("point", &SecondHeld::point), Field("instance", &SecondHeld::instance)};
  bool operator==(const SecondHeld&) const = default;
};

// ...and let go of once the first ended and a third instance ran.
struct SecondRelease {
  static constexpr const char* kType = "second_release";
  std::string point;
  bool third_exited = false;  // before hold_ms ran out
  std::optional<int> instance;
  static constexpr auto kFields = std::tuple{Field("point", &SecondRelease::point),
                                             Field("third_exited", &SecondRelease::third_exited),
                                             Field("instance", &SecondRelease::instance)};
  bool operator==(const SecondRelease&) const = default;
};

}  // namespace killpoint::event
