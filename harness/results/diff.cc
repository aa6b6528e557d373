#include "results/diff.h"

#include <algorithm>
#include <map>
#include <set>

namespace killpoint {
namespace {

using S = InvariantStatus;

// The scenarios of a run by name, each name's first.
std::map<std::string, const ScenarioResult*> ByName(const RunResults& r) {
  std::map<std::string, const ScenarioResult*> out;
  for (const ScenarioResult& s : r.scenarios) out.emplace(s.name, &s);
  return out;
}

const InvariantResult* Find(const ScenarioResult* s, const std::string& invariant) {
  if (!s) return nullptr;
  for (const InvariantResult& r : s->invariants) {
    if (r.name == invariant) return &r;
  }
  return nullptr;
}

Change Classify(std::optional<S> before, std::optional<S> after) {
  if (!after) return Change::kRemoved;
  if (*after == S::kViolated)
    return before == S::kViolated ? Change::kStillViolated : Change::kNewViolation;
  if (*after == S::kNotExercised)
    return before == S::kNotExercised ? Change::kStillNotExercised : Change::kNewlyNotExercised;
  if (!before) return Change::kAdded;
  if (*before == S::kViolated) return Change::kFixed;
  if (*before == S::kNotExercised) return Change::kNowExercised;
  if (*before == S::kShown && *after == S::kNotDemonstrated) return Change::kNewlyNotDemonstrated;
  if (*before == S::kNotDemonstrated && *after == S::kShown) return Change::kNewlyShown;
  return Change::kUnchanged;
}

InvariantChange Side(const std::string& scenario, const InvariantResult& r,
                     const ScenarioResult& s) {
  InvariantChange c;
  c.scenario = scenario;
  c.invariant = r.name;
  c.expectation = r.expectation;
  c.after = s.StatusOf(r);
  c.violated_after = r.violated;
  c.trials_after = r.held + r.violated;
  return c;
}

void AddBefore(InvariantChange& c, const InvariantResult& r, const ScenarioResult& s) {
  c.before = s.StatusOf(r);
  c.violated_before = r.violated;
  c.trials_before = r.held + r.violated;
}

}  // namespace

std::string ToString(Change c) { return std::string(kChangeNames.NameOf(c)); }

std::string JsonName(Change c) {
  std::string s = ToString(c);
  std::replace(s.begin(), s.end(), ' ', '_');
  return s;
}

bool IsWorse(Change c) { return c == Change::kNewViolation || c == Change::kNewlyNotExercised; }

std::vector<const InvariantChange*> RunDiff::Of(Change c) const {
  std::vector<const InvariantChange*> out;
  for (const InvariantChange& i : invariants) {
    if (i.change == c) out.push_back(&i);
  }
  return out;
}

int RunDiff::Count(Change c) const { return static_cast<int>(Of(c).size()); }

bool RunDiff::Worse() const {
  return std::any_of(invariants.begin(), invariants.end(),
                     [](const InvariantChange& i) { return IsWorse(i.change); });
}

bool RunDiff::Changed() const {
  return !scenarios_added.empty() || !scenarios_removed.empty() ||
         std::any_of(invariants.begin(), invariants.end(), [](const InvariantChange& i) {
           return i.change != Change::kUnchanged && i.change != Change::kStillViolated &&
                  i.change != Change::kStillNotExercised;
         });
}

RunDiff DiffRuns(const RunResults& before, const RunResults& after) {
  RunDiff d;
  auto old_by_name = ByName(before);
  std::set<std::string> seen;
  for (const ScenarioResult& s : after.scenarios) {
    if (!seen.insert(s.name).second) continue;
    auto old = old_by_name.find(s.name);
    const ScenarioResult* o = old == old_by_name.end() ? nullptr : old->second;
    if (!o) d.scenarios_added.push_back(s.name);
    if (s.NeverRan()) d.never_ran.push_back(s.name);
    for (const InvariantResult& r : s.invariants) {
      InvariantChange c = Side(s.name, r, s);
      if (const InvariantResult* was = Find(o, r.name)) AddBefore(c, *was, *o);
      c.change = Classify(c.before, c.after);
      if (c.change == Change::kNewViolation && !r.examples.empty())
        c.replay = r.examples.front().ReplayCommands();
      d.invariants.push_back(std::move(c));
    }
    if (!o) continue;
    for (const InvariantResult& r : o->invariants) {
      if (Find(&s, r.name)) continue;
      InvariantChange c;
      c.scenario = s.name;
      c.invariant = r.name;
      c.expectation = r.expectation;
      AddBefore(c, r, *o);
      c.change = Change::kRemoved;
      d.invariants.push_back(std::move(c));
    }
  }
  std::set<std::string> removed_seen;
  for (const ScenarioResult& o : before.scenarios) {
    if (seen.count(o.name) || !removed_seen.insert(o.name).second) continue;
    d.scenarios_removed.push_back(o.name);
    for (const InvariantResult& r : o.invariants) {
      InvariantChange c;
      c.scenario = o.name;
      c.invariant = r.name;
      c.expectation = r.expectation;
      AddBefore(c, r, o);
      c.change = Change::kRemoved;
      d.invariants.push_back(std::move(c));
    }
  }
  return d;
}

void to_json(nlohmann::json& j, const InvariantChange& c) {
  auto status = [](const std::optional<S>& s) {
    return s ? nlohmann::json(ToString(*s)) : nlohmann::json(nullptr);
  };
  j = {{"scenario", c.scenario},
       {"invariant", c.invariant},
       {"expectation", c.expectation},
       {"change", JsonName(c.change)},
       {"before", status(c.before)},
       {"after", status(c.after)},
       {"violated_before", c.violated_before},
       {"trials_before", c.trials_before},
       {"violated_after", c.violated_after},
       {"trials_after", c.trials_after}};
  if (!c.replay.empty()) j["replay"] = c.replay;
}

void to_json(nlohmann::json& j, const RunDiff& d) {
  nlohmann::json counts = nlohmann::json::object();
  for (const InvariantChange& c : d.invariants) {
    std::string name = JsonName(c.change);
    counts[name] = counts.value(name, 0) + 1;
  }
  j = {{"format", "killpoint-diff/1"},
       {"before", d.before_source},
       {"after", d.after_source},
       {"worse", d.Worse()},
       {"counts", counts},
       {"scenarios_added", d.scenarios_added},
       {"scenarios_removed", d.scenarios_removed},
       {"never_ran", d.never_ran},
       {"invariants", d.invariants}};
}

}  // namespace killpoint
