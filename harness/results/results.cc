#include "results/results.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "scenario/vocabulary.h"

namespace killpoint {
namespace {

std::string Joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

bool Intercepted(const std::string& interception) {
  return !interception.empty() && interception != kNoInterception;
}

std::string MergedInterception(const std::vector<std::string>& parts) {
  std::vector<std::string> distinct;
  for (const std::string& p : parts) {
    if (std::find(distinct.begin(), distinct.end(), p) == distinct.end()) distinct.push_back(p);
  }
  if (distinct.empty()) return "";
  if (distinct.size() == 1) return distinct.front();
  std::string out;
  for (const std::string& d : distinct)
    out += (out.empty() ? "" : ", ") + (d.empty() ? std::string("unknown") : d);
  return "mixed: " + out;
}

void to_json(nlohmann::json& j, const Counterexample& c) {
  j = {{"trial", c.trial},   {"seed", c.seed}, {"plan", c.plan}, {"explanation", c.explanation},
       {"replay", c.replay}, {"file", c.file}};
  if (!c.hint.empty()) j["hint"] = c.hint;
}

void from_json(const nlohmann::json& j, Counterexample& c) {
  Counterexample d;
  c.trial = j.value("trial", d.trial);
  c.seed = j.value("seed", d.seed);
  c.plan = j.value("plan", d.plan);
  c.explanation = j.value("explanation", d.explanation);
  c.replay = j.value("replay", d.replay);
  c.file = j.value("file", d.file);
  c.hint = j.value("hint", d.hint);
}

std::string ToString(InvariantStatus s) { return std::string(kInvariantStatusNames.NameOf(s)); }

InvariantStatus InvariantResult::Status() const {
  if (expectation == kMustHold)
    return violated ? InvariantStatus::kViolated : InvariantStatus::kHeld;
  return violated ? InvariantStatus::kShown : InvariantStatus::kNotDemonstrated;
}

std::string InvariantResult::Hint() const {
  for (const Counterexample& c : examples) {
    if (!c.hint.empty()) return c.hint;
  }
  return "";
}

void ExerciseStats::Add(const TrialExercise& t) {
  known = known || t.known;
  for (const std::string& call : t.refused) ++refused[call];
  if (!t.known || t.kills.empty()) {
    other_faults += t.other_faults;
    other_unfired += t.other_faults - t.other_fired;
    return;
  }
  ++trials_with_kill;
  if (t.AllFired()) ++trials_all_fired;
  for (const PlannedKill& k : t.kills) {
    ++kills_planned;
    PointExercise& p = points[k.point];
    ++p.planned;
    if (k.fired)
      ++p.fired;
    else
      ++kills_unfired;
  }
  if (t.Fired() > 0) {
    for (PersistenceModel m : t.Models()) ++models[std::string(NameOf(m))];
  }
  other_faults += t.other_faults;
  other_unfired += t.other_faults - t.other_fired;
}

std::vector<std::string> ExerciseStats::NeverReached() const {
  std::vector<std::string> out;
  for (const auto& [point, p] : points) {
    if (p.planned > 0 && p.fired == 0) out.push_back(point);
  }
  return out;
}

bool ExerciseStats::NotExercised() const {
  if (!refused.empty() || no_points) return true;
  if (deferred_to_merge) return false;      // merge decides over every shard's trials
  if (trials_with_kill == 0) return false;  // nothing was planned: nothing to miss
  if (min_exercised) return trials_all_fired < *min_exercised * trials_with_kill;
  return !NeverReached().empty();
}

std::string ExerciseStats::Explanation(bool with_points) const {
  std::ostringstream out;
  if (no_points) {
    out << "a fault-free run of the job passed no crash point the scenario names, so no trial "
           "could kill it where the scenario says (are its files in the sandbox, "
           "$KILLPOINT_WORKDIR?)";
  }
  if (kills_unfired > 0) {
    out << (out.tellp() > 0 ? "; " : "") << kills_unfired << " of " << kills_planned
        << " planned kills never fired; every planned kill fired in " << trials_all_fired << " of "
        << trials_with_kill << " trials with one";
    if (min_exercised) out << " (min_exercised " << *min_exercised << ")";
  }
  if (other_unfired > 0) {
    out << (out.tellp() > 0 ? "; " : "") << other_unfired << " of " << other_faults
        << " planned pauses, overlaps and downstream faults never happened";
  }
  if (auto never = NeverReached(); with_points && !never.empty())
    out << "; never reached: " << Joined(never);
  if (deferred_to_merge && (kills_unfired > 0 || other_unfired > 0)) {
    out << " (in this shard's trials alone: `killpoint merge` of every shard decides whether "
           "the scenario was exercised)";
  }
  for (const auto& [call, trials] : refused) {
    out << (out.tellp() > 0 ? "; " : "") << "the job called " << call << " in " << trials
        << (trials == 1 ? " trial" : " trials")
        << ", which the supervisor refuses (its operations would run unseen)";
  }
  return out.str();
}

InvariantStatus ScenarioResult::StatusOf(const InvariantResult& r) const {
  if (NeverRan() || Refused()) return InvariantStatus::kNotExercised;
  InvariantStatus s = r.Status();
  return s == InvariantStatus::kHeld && NotExercised() ? InvariantStatus::kNotExercised : s;
}

std::vector<std::string> ScenarioResult::ModelsRun() const {
  std::vector<std::string> out;
  if (!exercise.known) {
    for (PersistenceModel m : models) out.emplace_back(NameOf(m));
    return out;
  }
  for (const auto& [m, n] : exercise.models) out.push_back(m);
  return out;
}

namespace {

void AddOutside(std::vector<OutsideWriteStat>& stats, int& more,
                const std::vector<OutsideWrite>& writes) {
  for (const OutsideWrite& w : writes) {
    auto it = std::lower_bound(
        stats.begin(), stats.end(), w.path,
        [](const OutsideWriteStat& s, const std::string& p) { return s.path < p; });
    if (it == stats.end() || it->path != w.path) {
      if (stats.size() >= kMaxOutsidePaths) {
        ++more;
        continue;
      }
      it = stats.insert(it, {w.path, w.kind, {}, 0});
    }
    ++it->trials;
    std::set<std::string> ops(it->ops.begin(), it->ops.end());
    ops.insert(w.ops.begin(), w.ops.end());
    it->ops.assign(ops.begin(), ops.end());
  }
}

}  // namespace

std::vector<std::string> ScenarioResult::OutsideWriteNotes() const {
  std::vector<std::string> out;
  for (const OutsideWriteStat& w : outside_writes) {
    out.push_back("this job wrote " + Describe(OutsideWrite{w.path, w.kind, w.ops}) +
                  " outside its sandbox in " + std::to_string(w.trials) + " of " +
                  std::to_string(trials) + " trial" + (trials == 1 ? "" : "s") + ": " +
                  OutsideConsequence(w.kind));
  }
  if (outside_more > 0) {
    out.push_back("and " + std::to_string(outside_more) + " more write" +
                  (outside_more == 1 ? "" : "s") +
                  " to other paths outside its sandbox (the results keep the first " +
                  std::to_string(kMaxOutsidePaths) + " paths)");
  }
  return out;
}

std::string ScenarioResult::OutsideWriteHint() const {
  bool checked = std::any_of(invariants.begin(), invariants.end(),
                             [](const InvariantResult& r) { return r.name == kWritesInSandbox; });
  if (checked || (outside_writes.empty() && outside_more == 0)) return "";
  return std::string("a warning: ") + kWritesInSandbox +
         " in the scenario's invariants.must_hold makes a write outside the sandbox a violation";
}

void ScenarioResult::Add(const Plan& plan, const std::vector<Verdict>& verdicts,
                         const std::string& replay, const TrialExercise& exercised) {
  ++trials;
  exercise.Add(exercised);
  AddOutside(outside_writes, outside_more, exercised.outside);
  if (exercised.start_failure) start_failures.Add(plan.trial, *exercised.start_failure);
  std::vector<std::string> violated_here;
  std::string models;
  // The models the trial's kills applied; a trial of an old journal: its plan's.
  for (PersistenceModel m : exercised.known ? exercised.Models() : plan.Models())
    models += (models.empty() ? "" : "+") + std::string(NameOf(m));
  ++trials_by_model[models];
  for (const Verdict& v : verdicts) {
    auto it = std::find_if(invariants.begin(), invariants.end(),
                           [&](const InvariantResult& r) { return r.name == v.invariant; });
    if (it == invariants.end()) continue;  // the caller lists invariants up front
    if (v.held) {
      ++it->held;
      continue;
    }
    violated_here.push_back(v.invariant);
    ++it->violated;
    ++it->violated_by_model[models];
    if (it->examples.size() < kMaxExamples) {
      // The plan as its counterexample file lists it: only the kills that fired.
      std::string summary = exercised.known ? FiredOnly(plan, exercised).Summary() : plan.Summary();
      it->examples.push_back({plan.trial, plan.seed, summary,
                              v.explanation + " (under the " + models + " model)", replay, "",
                              v.hint});
    }
  }
  std::string point = "(no kill)";
  if (!plan.runs.empty() && !plan.runs[0].attempts.empty() &&
      !plan.runs[0].attempts[0].kill_point.empty()) {
    const AttemptFault& f = plan.runs[0].attempts[0];
    point = (f.when == Moment::kBefore ? "" : std::string(NameOf(f.when)) + ":") + f.kill_point +
            (f.occurrence > 1 ? "#" + std::to_string(f.occurrence) : "");
  }
  PointStat& stat = points[point];
  ++stat.trials;
  if (!violated_here.empty()) ++stat.violations;
  for (const auto& name : violated_here) ++stat.by_invariant[name];
}

std::string ScenarioResult::ByModel(const InvariantResult& r) const {
  if (trials_by_model.size() < 2) return "";
  std::string out;
  for (const auto& [model, n] : trials_by_model) {
    auto v = r.violated_by_model.find(model);
    out += (out.empty() ? "" : ", ") + model + " " +
           std::to_string(v == r.violated_by_model.end() ? 0 : v->second) + "/" + std::to_string(n);
  }
  return out;
}

bool ScenarioResult::MustHoldViolated() const {
  if (NeverRan() || Refused()) return false;
  return std::any_of(invariants.begin(), invariants.end(), [](const InvariantResult& r) {
    return r.Status() == InvariantStatus::kViolated;
  });
}

bool RunResults::NotExercised() const {
  return std::any_of(scenarios.begin(), scenarios.end(),
                     [](const ScenarioResult& s) { return s.NotExercised(); });
}

bool RunResults::Refused() const {
  return std::any_of(scenarios.begin(), scenarios.end(),
                     [](const ScenarioResult& s) { return s.Refused(); });
}

bool RunResults::MustHoldViolated() const {
  return std::any_of(scenarios.begin(), scenarios.end(),
                     [](const ScenarioResult& s) { return s.MustHoldViolated(); });
}

int RunResults::Trials() const {
  int n = 0;
  for (const auto& s : scenarios) n += s.trials;
  return n;
}

void to_json(nlohmann::json& j, const PointStat& p) {
  j = {{"trials", p.trials}, {"violations", p.violations}, {"by_invariant", p.by_invariant}};
}
// Fields added after the first results files are optional, so that older files still load.
void from_json(const nlohmann::json& j, PointStat& p) {
  j.at("trials").get_to(p.trials);
  j.at("violations").get_to(p.violations);
  p.by_invariant = j.value("by_invariant", std::map<std::string, int>{});
}

void to_json(nlohmann::json& j, const ExerciseStats& e) {
  nlohmann::json points = nlohmann::json::object();
  for (const auto& [name, p] : e.points)
    points[name] = {{"planned", p.planned}, {"fired", p.fired}};
  j = {{"trials_with_kill", e.trials_with_kill},
       {"trials_all_fired", e.trials_all_fired},
       {"kills_planned", e.kills_planned},
       {"kills_unfired", e.kills_unfired},
       {"other_faults", e.other_faults},
       {"other_unfired", e.other_unfired},
       {"points", points},
       {"models", e.models},
       {"never_reached", e.NeverReached()},
       {"refused", e.refused},
       {"no_points", e.no_points},
       {"not_exercised", e.NotExercised()}};
  if (e.deferred_to_merge) j["deferred_to_merge"] = true;
}
void from_json(const nlohmann::json& j, ExerciseStats& e) {
  e = ExerciseStats{};
  e.known = true;
  e.trials_with_kill = j.value("trials_with_kill", 0);
  e.trials_all_fired = j.value("trials_all_fired", 0);
  e.kills_planned = j.value("kills_planned", 0);
  e.kills_unfired = j.value("kills_unfired", 0);
  e.other_faults = j.value("other_faults", 0);
  e.other_unfired = j.value("other_unfired", 0);
  e.refused = j.value("refused", std::map<std::string, int>{});
  e.no_points = j.value("no_points", false);
  e.deferred_to_merge = j.value("deferred_to_merge", false);
  if (auto it = j.find("points"); it != j.end()) {
    for (const auto& [name, p] : it->items())
      e.points[name] = {p.at("planned").get<int>(), p.at("fired").get<int>()};
  }
  e.models = j.value("models", std::map<std::string, int>{});
}

void to_json(nlohmann::json& j, const InvariantResult& r) {
  j = {{"name", r.name},
       {"expectation", r.expectation},
       {"held", r.held},
       {"violated", r.violated},
       {"status", ToString(r.Status())},
       {"violated_by_model", r.violated_by_model},
       {"examples", r.examples}};
}
void from_json(const nlohmann::json& j, InvariantResult& r) {
  j.at("name").get_to(r.name);
  j.at("expectation").get_to(r.expectation);
  j.at("held").get_to(r.held);
  j.at("violated").get_to(r.violated);
  j.at("violated_by_model").get_to(r.violated_by_model);
  j.at("examples").get_to(r.examples);
}

void to_json(nlohmann::json& j, const ScenarioResult& r) {
  j = {{"name", r.name},
       {"file", r.file},
       {"trials", r.trials},
       {"elapsed_s", r.elapsed_s},
       {"exhaustive_total", r.exhaustive_total},
       {"trials_by_model", r.trials_by_model},
       {"must_hold_violated", r.MustHoldViolated()},
       {"invariants", r.invariants},
       {"points", r.points},
       {"models", r.models},
       {"models_run", r.ModelsRun()},
       {"not_exercised", r.NotExercised()},
       {"never_ran", r.NeverRan()}};
  if (r.exercise.known || r.exercise.no_points) j["exercise"] = r.exercise;
  if (r.start_failures.trials > 0) j["start_failures"] = r.start_failures;
  if (r.NeverRan() || r.Refused()) {
    // No invariant was tested: none reads violated (or held), whatever its checker saw.
    for (auto& inv : j["invariants"]) inv["status"] = ToString(InvariantStatus::kNotExercised);
  }
  if (r.NeverRan()) {
    j["never_ran_explanation"] = r.NeverRanExplanation();
    j["never_ran_stderr"] = r.NeverRanStderr();
  }
  if (r.exercise.min_exercised) j["min_exercised"] = *r.exercise.min_exercised;
  if (!r.job_commit.empty()) j["job_commit"] = r.job_commit;
  if (!r.outside_writes.empty()) j["outside_writes"] = r.outside_writes;
  if (r.outside_more > 0) j["outside_more"] = r.outside_more;
  if (!r.interception.empty()) j["interception"] = r.interception;
  if (r.exhaustive_dates > 0) j["exhaustive_dates"] = r.exhaustive_dates;
  if (r.exhaustive_limit > 0) j["exhaustive_limit"] = r.exhaustive_limit;
  for (const RenamedPoint& p : r.renamed)
    j["renamed_points"].push_back({{"name", p.name}, {"shape", p.shape}});
}
void from_json(const nlohmann::json& j, ScenarioResult& r) {
  j.at("name").get_to(r.name);
  j.at("file").get_to(r.file);
  j.at("trials").get_to(r.trials);
  j.at("elapsed_s").get_to(r.elapsed_s);
  j.at("exhaustive_total").get_to(r.exhaustive_total);
  r.exhaustive_dates = j.value("exhaustive_dates", 0);
  r.exhaustive_limit = j.value("exhaustive_limit", 0);
  if (auto it = j.find("renamed_points"); it != j.end() && it->is_array()) {
    for (const auto& p : *it) r.renamed.push_back({p.value("name", ""), p.value("shape", "")});
  }
  j.at("trials_by_model").get_to(r.trials_by_model);
  j.at("invariants").get_to(r.invariants);
  j.at("points").get_to(r.points);
  r.models = j.value("models", std::vector<PersistenceModel>{});
  // Absent in results of before issue 17: nothing known, nothing held against them.
  r.exercise = j.value("exercise", ExerciseStats{});
  if (j.contains("min_exercised")) r.exercise.min_exercised = j.at("min_exercised").get<double>();
  r.job_commit = j.value("job_commit", "");
  r.outside_writes = j.value("outside_writes", std::vector<OutsideWriteStat>{});
  r.outside_more = j.value("outside_more", 0);
  r.start_failures = j.value("start_failures", StartFailureStats{});
  r.interception = j.value("interception", "");  // absent before issue 32: unknown
}

void to_json(nlohmann::json& j, const RunResults& r) {
  j = {{"format", "killpoint-results/1"},
       {"killpoint_version", r.killpoint_version},
       {"seed", r.seed},
       {"started_at", r.started_at},
       {"elapsed_s", r.elapsed_s},
       {"trials", r.Trials()},
       {"must_hold_violated", r.MustHoldViolated()},
       {"not_exercised", r.NotExercised()},
       {"never_ran", r.NeverRan()},
       {"scenarios", r.scenarios}};
  if (r.shard) j["shard"] = *r.shard;
  if (!r.partial.empty()) j["partial"] = r.partial;
  if (!r.interception.empty()) j["interception"] = r.interception;
}
void from_json(const nlohmann::json& j, RunResults& r) {
  if (j.value("format", "") != "killpoint-results/1") {
    throw nlohmann::json::other_error::create(501, "not a killpoint-results/1 file", &j);
  }
  j.at("killpoint_version").get_to(r.killpoint_version);
  j.at("seed").get_to(r.seed);
  j.at("started_at").get_to(r.started_at);
  j.at("elapsed_s").get_to(r.elapsed_s);
  j.at("scenarios").get_to(r.scenarios);
  if (j.contains("shard")) r.shard = j.at("shard").get<ShardInfo>();
  r.partial = j.value("partial", "");
  r.interception = j.value("interception", "");  // absent before issue 32: unknown
}

std::string ScenarioResult::ExhaustiveCoverage() const {
  if (exhaustive_total <= 0) return "";
  std::string out =
      std::to_string(trials) + " of " + std::to_string(exhaustive_total) + " combinations tried";
  if (exhaustive_limit > 0) {
    std::ostringstream every;
    every.setf(std::ios::fixed);
    every.precision(1);
    every << static_cast<double>(exhaustive_total) / exhaustive_limit;
    out += " (--limit " + std::to_string(exhaustive_limit) +
           ", spread over all of them: one in every " + every.str() + ")";
  } else if (trials == exhaustive_total) {
    out += ", all";
  }
  if (exhaustive_dates > 0) {
    out += ": a kill at every crash point, moment and model of the first attempt of " +
           (exhaustive_dates == 1 ? std::string("its one date")
                                  : "each of " + std::to_string(exhaustive_dates) + " dates") +
           "; the attempts after a kill run fault-free";
  }
  return out;
}

}  // namespace killpoint
