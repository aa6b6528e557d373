#include "scenario/fault_spec_reader.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "scenario/net_point.h"

namespace killpoint {
namespace {

constexpr int64_t kMaxPauseMs = 600'000;  // ten minutes of real time: more is a mistake
constexpr int64_t kMaxHoldMs = 600'000;
constexpr int64_t kMaxBurst = 1000;

bool Lists(const std::vector<std::string>& list, const std::string& point) {
  return std::find(list.begin(), list.end(), point) != list.end();
}

// Why the job can never be held at `point`: the downstream answers a request on a thread of
// its own, which nothing would release (docs/faults.md); "" for a point that can hold (a job's
// own, a syscall point, a command to a service).
std::string NeverHolds(const std::string& point) {
  if (!point.starts_with("downstream:")) return "";
  return "'" + point +
         "' never holds the job: a pause, an overlap or a server fault waits at a point of the "
         "job's own, a syscall point or a command to a service (docs/faults.md)";
}

// A pause or overlap point: one of the scenario's failpoints or hold_points, each listed once.
// The harness cannot know which named points a job has, so an undeclared point is a typo.
std::vector<std::string> ReadPoints(FieldReader& r, const DeclaredPoints& declared) {
  std::vector<std::string> points = r.Strings("points", true, false);
  std::set<std::string> seen;
  for (size_t i = 0; i < points.size(); ++i) {
    std::string where = "points[" + std::to_string(i) + "]";
    if (!Lists(declared.failpoints, points[i]) && !Lists(declared.hold_points, points[i])) {
      std::string known;
      for (const auto* list : {&declared.failpoints, &declared.hold_points}) {
        for (const auto& f : *list) known += (known.empty() ? "" : ", ") + f;
      }
      r.Fail(where, "unknown point '" + points[i] +
                        "': it must be one of the scenario's failpoints or hold_points (" +
                        (known.empty() ? "none listed" : known) + ")");
    }
    if (std::string never = NeverHolds(points[i]); !never.empty()) r.Fail(where, never);
    if (!seen.insert(points[i]).second) r.Fail(where, "'" + points[i] + "' is listed twice");
  }
  return points;
}

double ReadProbability(FieldReader& r) {
  if (!r.Has("probability")) r.Fail("probability", "is required (a number from 0 to 1)");
  return r.Number("probability", 0.0, 1.0, 0.0);
}

PauseSpec ReadPause(FieldReader r, const DeclaredPoints& declared) {
  PauseSpec p;
  p.points = ReadPoints(r, declared);
  const int64_t duration = p.duration_ms;
  p.duration_ms = r.Integer("duration_ms", 1, kMaxPauseMs, &duration);
  p.probability = ReadProbability(r);
  r.Finish();
  return p;
}

OverlapSpec ReadOverlap(FieldReader r, const DeclaredPoints& declared) {
  OverlapSpec o;
  o.points = ReadPoints(r, declared);
  o.probability = ReadProbability(r);
  const int64_t hold = o.hold_ms;
  o.hold_ms = r.Integer("hold_ms", 1, kMaxHoldMs, &hold);
  if (r.Has("second_holds_at")) {  // docs/faults.md, "Three instances"
    o.second_holds_at = r.String("second_holds_at");
    const std::string& point = o.second_holds_at;
    if (!Lists(declared.failpoints, point) && !Lists(declared.hold_points, point)) {
      r.Fail("second_holds_at", "unknown point '" + point +
                                    "': it must be one of the scenario's failpoints or "
                                    "hold_points");
    }
    if (std::string never = NeverHolds(point); !never.empty()) r.Fail("second_holds_at", never);
    if (Lists(o.points, point)) {
      r.Fail("second_holds_at", "'" + point +
                                    "' is also a point of faults.overlap.points: the second "
                                    "instance is held at a point of its own, after the first's");
    }
  }
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

// "actions": each listed once, each a name of `table`.
template <class E, size_t N>
std::vector<E> ReadActions(FieldReader& r, const NameTable<E, N>& table) {
  std::vector<std::string> names = r.Strings("actions", true, false);
  r.Unique("actions", names);
  std::vector<E> actions;
  for (size_t i = 0; i < names.size(); ++i) {
    if (auto action = table.Named(names[i])) {
      actions.push_back(*action);
      continue;
    }
    std::string closest = table.Closest(names[i]);
    r.Fail("actions[" + std::to_string(i) + "]",
           "unknown action '" + names[i] + "' (" +
               (closest.empty() ? "" : "did you mean '" + closest + "'? ") +
               "known: " + table.Listed() + ")");
  }
  return actions;
}

constexpr int kMaxNetHit = 1000;

// "net:<service>:<moment>", a fault moment or a command's verb; the service is checked once
// services are read (CheckNetFaultServices).
NetSpec ReadNet(FieldReader r) {
  NetSpec n;
  n.points = r.Strings("points", true, false);
  for (size_t i = 0; i < n.points.size(); ++i) {
    if (!ParseNetPoint(n.points[i])) {
      r.Fail("points[" + std::to_string(i) + "]",
             "'" + n.points[i] + "' is no network point: net:<service>:commit, " +
                 "net:<service>:set_nx, net:<service>:connect or a command point such as "
                 "net:<service>:UPDATE (docs/services.md)");
    }
  }
  r.Unique("points", n.points);
  n.actions = ReadActions(r, kNetActionNames);
  for (size_t i = 0; i < n.actions.size(); ++i) {
    bool fits = false;
    for (const auto& point : n.points) fits |= !NetActionsFitting(point, {n.actions[i]}).empty();
    if (!fits) {
      r.Fail("actions[" + std::to_string(i) + "]",
             "'" + std::string(NameOf(n.actions[i])) +
                 "' fits none of the points (commit, set_nx, a command: " +
                 "drop_answer, reset, delay, stall; connect: refuse)");
    }
  }
  n.probability = ReadProbability(r);
  const int64_t hit = n.max_hit, ms = n.ms;
  n.max_hit = static_cast<int>(r.Integer("max_hit", 1, kMaxNetHit, &hit));
  n.ms = r.Integer("ms", 1, kMaxPauseMs, &ms);
  r.Finish();
  return n;
}

// The services are checked once they are read (CheckServerFaultServices).
ServerFaultSpec ReadServerFaults(FieldReader r, const DeclaredPoints& declared) {
  ServerFaultSpec f;
  f.points = ReadPoints(r, declared);
  f.services = r.Strings("services", true, false);
  r.Unique("services", f.services);
  f.actions = ReadActions(r, kServerActionNames);
  f.probability = ReadProbability(r);
  const int64_t duration = f.duration_ms;
  f.duration_ms = r.Integer("duration_ms", 1, kMaxPauseMs, &duration);
  r.Finish();
  return f;
}

}  // namespace

void CheckServerFaultServices(FieldReader& r, const Scenario& s) {
  const auto& services = s.faults.server.services;
  for (size_t i = 0; i < services.size(); ++i) {
    auto it = s.services.find(services[i]);
    const std::string field = "faults.server.services[" + std::to_string(i) + "]";
    if (it == s.services.end())
      r.Fail(field, "names no service of the scenario: '" + services[i] + "'");
  }
}

void CheckNetFaultServices(FieldReader& r, const Scenario& s) {
  const auto& points = s.faults.net.points;
  for (size_t i = 0; i < points.size(); ++i) {
    NetPoint p = *ParseNetPoint(points[i]);
    auto it = s.services.find(p.service);
    const std::string field = "faults.net.points[" + std::to_string(i) + "]";
    if (it == s.services.end()) {
      r.Fail(field, "names no service of the scenario: '" + p.service + "'");
      continue;
    }
    if (!NetMomentSeenOn(p.moment, it->second.kind)) {
      r.Fail(field, "'" + p.service + "' is a " + it->second.kind + " service; the proxy sees " +
                        (p.moment == kNetCommit  ? "COMMITs on postgres and mariadb services only"
                         : p.moment == kNetSetNx ? "SET ... NX on redis services only"
                         : std::islower(uint8_t(p.moment[0]))
                             ? "AMQP methods on rabbitmq services only"
                             : "SQL statements and Redis commands on postgres, mariadb and redis "
                               "services only"));
    }
  }
}

FaultSpec ReadFaults(FieldReader r, const DeclaredPoints& declared) {
  FaultSpec f;
  if (r.Has("pause")) f.pause = ReadPause(r.Object("pause"), declared);
  if (r.Has("overlap")) f.overlap = ReadOverlap(r.Object("overlap"), declared);
  if (r.Has("downstream_burst")) f.downstream_burst = ReadBurst(r.Object("downstream_burst"));
  if (r.Has("net")) f.net = ReadNet(r.Object("net"));
  if (r.Has("server")) f.server = ReadServerFaults(r.Object("server"), declared);
  r.Finish();
  return f;
}

}  // namespace killpoint
