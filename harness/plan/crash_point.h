// Crash point names. A job's own failpoints have names it chose ("before_commit"); the
// syscall shim names every file operation "<op>:<path>" ("rename:state.json.tmp:state.json").
// Named failpoints can only be crashed before; a syscall point also after the operation, and
// a write in its middle (only a prefix of its bytes reaches the file). The harness's own
// downstream names the moments of a request it serves "downstream:<path>:<moment>"
// ("downstream:/publish:after_commit", docs/scenarios.md): a kill there needs no client and
// no shim; like a named failpoint, each has one moment.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "scenario/vocabulary.h"
#include "util/name_table.h"

namespace killpoint {

// A point a job passes: its name and which hit of that name within an attempt.
struct CrashPoint {
  std::string name;
  int occurrence = 1;
  bool operator==(const CrashPoint&) const = default;
};

// When the kill happens relative to the point: before the operation, after it, or in the
// middle of a write (run/mid_cut.h). JSON: the name.
enum class Moment { kBefore, kAfter, kMid };
inline constexpr auto kMomentNames = MakeNameTable<Moment>(
    {
        {Moment::kBefore, "before"},
        {Moment::kAfter, "after"},
        {Moment::kMid, "mid"},
    },
    "a kill's moment (when)");
static_assert(kMomentNames.Unique());
constexpr const auto& NamesOf(Moment) { return kMomentNames; }

// "write:x" -> "write"; "" for a named failpoint.
std::string_view SyscallOp(std::string_view point);
inline bool IsSyscallPoint(std::string_view point) { return !SyscallOp(point).empty(); }

// A downstream point: "downstream:" + endpoint path + ":" + moment (kDownstreamMoments).
inline constexpr std::string_view kDownstreamPrefix = "downstream:";
// A request has arrived, nothing is committed yet; the publish has committed (delivered or
// found a duplicate) and no answer has gone out; its answer was written to the job's socket.
inline constexpr const char* kBeforeCommit = "before_commit";
inline constexpr const char* kAfterCommit = "after_commit";
inline constexpr const char* kAfterAnswer = "after_answer";
std::string DownstreamPoint(std::string_view path, std::string_view moment);
inline bool IsDownstreamPoint(std::string_view point) {
  return point.starts_with(kDownstreamPrefix);
}
// A fault-free run's points with each downstream after_answer right after its request's
// after_commit (the n-th of the same path). The downstream reports after_answer once the answer
// is written, racing the job's next point; where the job waited for that answer is the one
// order every run agrees on, so that exhaustive trial i and a shard's share stay the same.
std::vector<CrashPoint> AnswersAfterTheirCommits(std::vector<CrashPoint> points);
// "syscall", "downstream", "net" (a command to a service, scenario/net_point.h) or "named"
// (`killpoint points --json`).
const char* PointKind(std::string_view point);

// The moments a kill may take at this point: {before}, {before, after} (a syscall point; a
// command point: before it is forwarded, after its answer) or, for a write, {before, after, mid}.
std::vector<Moment> KillMoments(std::string_view point);
// The same for a point as discovered, with `unseen`: where the shim noticed a write it did not
// see (docs/syscall-shim.md), "" for every other point. An unseen write has only {after}: its
// data reached the file before the shim noticed it, no kill can fall before or in its middle.
std::vector<Moment> KillMoments(std::string_view point, std::string_view unseen);

// "fsync:." -> "."; the path part of a syscall point (for rename, the source).
std::string_view SyscallPath(std::string_view point);

}  // namespace killpoint
