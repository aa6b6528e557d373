// The mark each event type draws on its attempt's lane (reports/timeline.h), one function per
// type, read from the typed event (history/events/). An event type without a MarkFor here draws
// no mark of its own: the timeline's builder folds it into a lane, a note or nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "history/event_registry.h"
#include "reports/timeline.h"

namespace killpoint {

// "1s", "250ms".
std::string Ms(int64_t ms);
// "exit 3", "killed (signal 9)".
std::string HowItEnded(const event::Exit& exit);

// Pauses, overlaps (docs/faults.md), network and server faults.
std::optional<Mark> MarkFor(const event::Pause& p);
std::optional<Mark> MarkFor(const event::Resume& r);
std::optional<Mark> MarkFor(const event::Overlap& o);
std::optional<Mark> MarkFor(const event::OverlapEnd& o);
std::optional<Mark> MarkFor(const event::Spawn& s);  // a third instance's; nullopt for others
std::optional<Mark> MarkFor(const event::SecondHeld& s);
std::optional<Mark> MarkFor(const event::SecondRelease& s);
std::optional<Mark> MarkFor(const event::NetFault& n);
std::optional<Mark> MarkFor(const event::ServerFault& f);
std::optional<Mark> MarkFor(const event::Exit& x);  // a second or third instance's end

// What an attempt passed and what the harness did to it.
std::optional<Mark> MarkFor(const event::Failpoint& f);
std::optional<Mark> MarkFor(const event::PointsPassed& p);
std::optional<Mark> MarkFor(const event::PointsDropped& p);
std::optional<Mark> MarkFor(const event::Kill& k);
std::optional<Mark> MarkFor(const event::Rollback& r);
std::optional<Mark> MarkFor(const event::CrashCheck& c);
std::optional<Mark> MarkFor(const event::Timeout& t);
std::optional<Mark> MarkFor(const event::OutsideWrites& o);

// What the job asked of the downstream.
std::optional<Mark> MarkFor(const event::Query& q);
std::optional<Mark> MarkFor(const event::Alert& a);
std::optional<Mark> MarkFor(const event::JobRetry& r);
std::optional<Mark> MarkFor(const event::JobWait& w);
std::optional<Mark> MarkFor(const event::BadRequest& b);

}  // namespace killpoint
