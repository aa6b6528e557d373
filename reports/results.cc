#include "reports/results.h"

#include <algorithm>

namespace killpoint {
namespace {
}  // namespace

std::string ToString(InvariantStatus s) {
  switch (s) {
    case InvariantStatus::kHeld: return "held";
    case InvariantStatus::kViolated: return "VIOLATED";
    case InvariantStatus::kShown: return "expected, shown";
    case InvariantStatus::kNotDemonstrated: return "expected, not demonstrated";
  }
  return "?";
}

InvariantStatus InvariantResult::Status() const {
  if (expectation == kMustHold) return violated ? InvariantStatus::kViolated : InvariantStatus::kHeld;
  return violated ? InvariantStatus::kShown : InvariantStatus::kNotDemonstrated;
}

void ScenarioResult::Add(const Plan& plan, const std::vector<Verdict>& verdicts,
                         const std::string& replay) {
  ++trials;
  std::vector<std::string> violated_here;
  std::string models;
  for (const auto& m : plan.Models()) models += (models.empty() ? "" : "+") + m;
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
      it->examples.push_back({plan.trial, plan.seed, plan.Summary(),
                              v.explanation + " (under the " + models + " model)", replay, ""});
    }
  }
  std::string point = "(no kill)";
  if (!plan.runs.empty() && !plan.runs[0].attempts.empty() && !plan.runs[0].attempts[0].kill_point.empty()) {
    const AttemptFault& f = plan.runs[0].attempts[0];
    point = (f.when == "before" ? "" : f.when + ":") + f.kill_point +
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
    out += (out.empty() ? "" : ", ") + model + " " + std::to_string(v == r.violated_by_model.end() ? 0 : v->second) +
           "/" + std::to_string(n);
  }
  return out;
}

bool ScenarioResult::MustHoldViolated() const {
  return std::any_of(invariants.begin(), invariants.end(), [](const InvariantResult& r) {
    return r.Status() == InvariantStatus::kViolated;
  });
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

void to_json(nlohmann::json& j, const InvariantResult& r) {
  j = {{"name", r.name}, {"expectation", r.expectation}, {"held", r.held}, {"violated", r.violated},
       {"status", ToString(r.Status())}, {"violated_by_model", r.violated_by_model},
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
  j = {{"name", r.name}, {"file", r.file}, {"trials", r.trials}, {"elapsed_s", r.elapsed_s},
       {"exhaustive_total", r.exhaustive_total}, {"trials_by_model", r.trials_by_model},
       {"must_hold_violated", r.MustHoldViolated()}, {"invariants", r.invariants},
       {"points", r.points}, {"models", r.models}};
  if (!r.job_commit.empty()) j["job_commit"] = r.job_commit;
}
void from_json(const nlohmann::json& j, ScenarioResult& r) {
  j.at("name").get_to(r.name);
  j.at("file").get_to(r.file);
  j.at("trials").get_to(r.trials);
  j.at("elapsed_s").get_to(r.elapsed_s);
  j.at("exhaustive_total").get_to(r.exhaustive_total);
  j.at("trials_by_model").get_to(r.trials_by_model);
  j.at("invariants").get_to(r.invariants);
  j.at("points").get_to(r.points);
  r.models = j.value("models", std::vector<std::string>{});
  r.job_commit = j.value("job_commit", "");
}

void to_json(nlohmann::json& j, const RunResults& r) {
  j = {{"format", "killpoint-results/1"}, {"killpoint_version", r.killpoint_version},
       {"seed", r.seed}, {"started_at", r.started_at}, {"elapsed_s", r.elapsed_s},
       {"trials", r.Trials()}, {"must_hold_violated", r.MustHoldViolated()},
       {"scenarios", r.scenarios}};
  if (r.shard) j["shard"] = *r.shard;
  if (!r.partial.empty()) j["partial"] = r.partial;
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
}

}  // namespace killpoint
