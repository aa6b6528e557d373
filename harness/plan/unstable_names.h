// Names that change from run to run (issue 33): a content-addressed file (git's
// objects/16/<tmp8>), a time-stamped export, a name re-read on a racy timestamp. A plan that
// names the point one fault-free run passed never meets it in the trial, which passes another
// name: the kill never fires, and the scenario reads "not exercised". A second fault-free run
// tells them apart: a point whose name it did not repeat is planned by its shape, a pattern
// with a * where the two names differ ("open:repo/.git/objects/*/<tmp8>"), at the hit of that
// pattern the first run passed it at. Pure.
#pragma once

#include <string>
#include <vector>

#include "plan/crash_point.h"

namespace killpoint {

// The shape of two names of one point: their common start and end, a * between, each cut back
// to a boundary (a character that is no letter or digit) so that a differing run of letters and
// digits goes whole ("export-*.csv", not "export-2026120*.csv"). Empty when the names are equal.
std::string NameShape(const std::string& first, const std::string& second);

// A name that changed, and the shape it is planned by.
struct RenamedPoint {
  std::string name;   // as the first run passed it
  std::string shape;  // the pattern it is planned by
  bool operator==(const RenamedPoint&) const = default;
};

// `first` with each point whose name `second` did not repeat at the same place (the same index,
// the same operation) replaced by its shape, its occurrence the hit of that pattern it was in
// `first`. Points after the two runs part ways (a different operation, or one run longer) keep
// their names. `renamed`, when given, gets what was replaced.
std::vector<CrashPoint> PlanUnstableNamesByShape(const std::vector<CrashPoint>& first,
                                                 const std::vector<CrashPoint>& second,
                                                 std::vector<RenamedPoint>* renamed = nullptr);

}  // namespace killpoint
