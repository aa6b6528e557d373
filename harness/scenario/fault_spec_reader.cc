#include "scenario/fault_spec_reader.h"

#include <algorithm>
#include <set>

namespace killpoint {
namespace {

constexpr int64_t kMaxPauseMs = 600'000;  // ten minutes of real time: more is a mistake
constexpr int64_t kMaxHoldMs = 600'000;
constexpr int64_t kMaxBurst = 1000;

// A pause or overlap point: one of the scenario's failpoints, each listed once. The harness
// cannot know which named points a job has, so a point outside `failpoints` is a typo.
std::vector<std::string> ReadPoints(FieldReader& r, const std::vector<std::string>& failpoints) {
  std::vector<std::string> points = r.Strings("points", true, false);
  std::set<std::string> seen;
  for (size_t i = 0; i < points.size(); ++i) {
    std::string where = "points[" + std::to_string(i) + "]";
    if (std::find(failpoints.begin(), failpoints.end(), points[i]) == failpoints.end()) {
      std::string known;
      for (const auto& f : failpoints) known += (known.empty() ? "" : ", ") + f;
      r.Fail(where, "unknown point '" + points[i] +
                        "': it must be one of the scenario's failpoints (" +
                        (known.empty() ? "none listed" : known) + ")");
    }
    if (!seen.insert(points[i]).second) r.Fail(where, "'" + points[i] + "' is listed twice");
  }
  return points;
}

double ReadProbability(FieldReader& r) {
  if (!r.Has("probability")) r.Fail("probability", "is required (a number from 0 to 1)");
  return r.Number("probability", 0.0, 1.0, 0.0);
}

PauseSpec ReadPause(FieldReader r, const std::vector<std::string>& failpoints) {
  PauseSpec p;
  p.points = ReadPoints(r, failpoints);
  const int64_t duration = p.duration_ms;
  p.duration_ms = r.Integer("duration_ms", 1, kMaxPauseMs, &duration);
  p.probability = ReadProbability(r);
  r.Finish();
  return p;
}

OverlapSpec ReadOverlap(FieldReader r, const std::vector<std::string>& failpoints) {
  OverlapSpec o;
  o.points = ReadPoints(r, failpoints);
  o.probability = ReadProbability(r);
  const int64_t hold = o.hold_ms;
  o.hold_ms = r.Integer("hold_ms", 1, kMaxHoldMs, &hold);
  r.Finish();
  return o;
}

BurstSpec ReadBurst(FieldReader r) {
  BurstSpec b;
  b.length = static_cast<int>(r.Integer("length", 1, kMaxBurst, nullptr));
  b.probability = ReadProbability(r);
  r.Finish();
  return b;
}

}  // namespace

FaultSpec ReadFaults(FieldReader r, const std::vector<std::string>& failpoints) {
  FaultSpec f;
  if (r.Has("pause")) f.pause = ReadPause(r.Object("pause"), failpoints);
  if (r.Has("overlap")) f.overlap = ReadOverlap(r.Object("overlap"), failpoints);
  if (r.Has("downstream_burst")) f.downstream_burst = ReadBurst(r.Object("downstream_burst"));
  r.Finish();
  return f;
}

}  // namespace killpoint
