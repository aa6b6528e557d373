// Crash point names. A job's own failpoints have names it chose ("before_commit"); the
// syscall shim names every file operation "<op>:<path>" ("rename:state.json.tmp:state.json").
// Named failpoints can only be crashed before; a syscall point also after the operation, and
// a write in its middle (only a prefix of its bytes reaches the file).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "scenario/vocabulary.h"

namespace killpoint {

// A point a job passes: its name and which hit of that name within an attempt.
struct CrashPoint {
  std::string name;
  int occurrence = 1;
  bool operator==(const CrashPoint&) const = default;
};

// When the kill happens relative to the point.
inline constexpr const char* kBefore = "before";
inline constexpr const char* kAfter = "after";
inline constexpr const char* kMid = "mid";

// "write:x" -> "write"; "" for a named failpoint.
std::string_view SyscallOp(std::string_view point);
inline bool IsSyscallPoint(std::string_view point) { return !SyscallOp(point).empty(); }

// The moments a kill may take at this point: {before}, {before, after} or, for a write,
// {before, after, mid}.
std::vector<const char*> KillMoments(std::string_view point);
// The same for a point as discovered, with `unseen`: where the shim noticed a write it did not
// see (docs/syscall-shim.md), "" for every other point. An unseen write has only {after}: its
// data reached the file before the shim noticed it, no kill can fall before or in its middle.
std::vector<const char*> KillMoments(std::string_view point, std::string_view unseen);

// "fsync:." -> "."; the path part of a syscall point (for rename, the source).
std::string_view SyscallPath(std::string_view point);

}  // namespace killpoint
