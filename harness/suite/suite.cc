#include "suite/suite.h"

#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <memory>

#include "check/checker.h"
#include "counterexample/counterexample.h"
#include "counterexample/final_state.h"
#include "history/history_log.h"
#include "plan/exhaustive.h"
#include "plan/planner.h"
#include "run/discovery.h"
#include "run/trial_runner.h"
#include "suite/job_commit.h"
#include "suite/shard.h"
#include "util/atomic_file.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

std::string UtcNow() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string Quote(const std::string& s) {
  if (s.find_first_of(" '\"\\$`") == std::string::npos) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

int TrialsFor(const Scenario& s, const SuiteOptions& o) {
  if (o.trials > 0) return o.trials;
  return s.trials > 0 ? s.trials : kDefaultTrials;
}

ScenarioResult EmptyResult(const Scenario& s) {
  ScenarioResult r;
  r.name = s.name;
  r.file = s.file.string();
  r.models = s.models;
  for (const auto& name : s.must_hold) r.invariants.push_back({name, kMustHold, 0, 0, {}, {}});
  for (const auto& name : s.expected_violations) r.invariants.push_back({name, kExpectedViolation, 0, 0, {}, {}});
  return r;
}

Status RecordTrial(const fs::path& dir, const TrialRecord& t, const std::vector<Verdict>& verdicts) {
  if (Status s = AppendTrialHistory(dir / "history.jsonl", t.plan.trial, t.events); !s) return s;
  nlohmann::json line = {{"trial", t.plan.trial}, {"plan", t.plan}, {"verdicts", verdicts}};
  return AppendDurably(dir / "trials.jsonl", line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

Status WriteResults(const fs::path& out, const RunResults& results) {
  nlohmann::json j = results;
  return WriteFileAtomically(out / "results.json", j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

// The examples this trial just became (the first few violations of each invariant) get a
// counterexample file each, for `killpoint replay FILE`.
Status SaveCounterexamples(const Scenario& s, const SuiteOptions& o, const TrialRecord& t,
                           const std::vector<Verdict>& verdicts, ScenarioResult& result) {
  std::string text;
  for (InvariantResult& inv : result.invariants) {
    for (Counterexample& example : inv.examples) {
      if (example.trial != t.plan.trial || !example.file.empty()) continue;
      if (text.empty()) {
        auto read = ReadFile(s.file);
        if (!read) return read.error();
        text = read.value();
      }
      CounterexampleFile c;
      c.killpoint_version = KILLPOINT_VERSION;
      c.scenario_file = fs::absolute(s.file).string();
      c.scenario_name = s.name;
      c.scenario_text = text;
      c.source = "run";
      c.plan = t.plan;
      c.invariant = inv.name;
      for (const Verdict& v : verdicts) {
        if (v.invariant == inv.name) c.explanation = v.explanation;
      }
      c.verdicts = verdicts;
      c.events = t.events;
      c.final_state = CaptureFinalState(s, t.sandbox.work(), t.events);
      fs::path file = o.out / Slug(s.name) / "counterexamples" /
                      ("trial-" + std::to_string(t.plan.trial) + "-" + inv.name + ".json");
      example.file = file.string();
      c.reproduce = "killpoint replay " + Quote(example.file);
      if (Status st = WriteCounterexample(file, c); !st) return st;
    }
  }
  return Ok();
}

Result<ScenarioResult> RunScenario(const Scenario& s, const SuiteOptions& o, const TrialOptions& to) {
  auto started = Clock::now();
  ScenarioResult result = EmptyResult(s);
  fs::path dir = o.out / Slug(s.name);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Error::Harness("cannot create " + dir.string() + ": " + ec.message());
  // A rerun into the same folder starts the journals afresh.
  fs::remove(dir / "history.jsonl", ec);
  fs::remove(dir / "trials.jsonl", ec);
  fs::remove_all(dir / "counterexamples", ec);
  std::vector<AttemptFault> space;
  if (o.exhaustive) {
    auto points = DiscoverPoints(s, "", to);
    if (!points) return points.error();
    space = EnumerateFaults(points.value(), s.models);
    result.exhaustive_total = static_cast<int>(space.size());
    if (o.only_trial && *o.only_trial >= result.exhaustive_total) {
      return Error::BadInput(s.file.string() + ": --trial " + std::to_string(*o.only_trial) + " is beyond its " +
                             std::to_string(space.size()) + " exhaustive combinations");
    }
  }
  int count = o.exhaustive ? std::min<int>(o.exhaustive_limit, static_cast<int>(space.size())) : TrialsFor(s, o);
  int first = o.only_trial.value_or(0);
  int last = o.only_trial ? first + 1 : count;
  result.job_commit = JobCommit(s, o.bindir);
  if (o.on_scenario) o.on_scenario(s, o.only_trial ? 1 : ShareOf(last, o.shard));
  for (int trial = first; trial < last; ++trial) {
    if (!o.only_trial && !InShard(trial, o.shard)) continue;
    Plan plan = o.exhaustive ? MakeExhaustivePlan(s, o.seed, trial, space[trial]) : MakePlan(s, o.seed, trial);
    auto record = RunTrial(s, plan, to);
    if (!record) return record.error();
    CheckInput input{s, record.value().plan, record.value().events, record.value().sandbox.work()};
    std::vector<Verdict> verdicts = CheckTrial(input);
    if (Status st = RecordTrial(dir, record.value(), verdicts); !st) return st.error();
    result.Add(plan, verdicts, ReplayCommand(s, o.seed, trial, o.exhaustive));
    if (Status st = SaveCounterexamples(s, o, record.value(), verdicts, result); !st) return st.error();
    if (o.on_trial) o.on_trial(s, trial, verdicts, o.keep_sandboxes ? record.value().sandbox.root() : fs::path());
  }
  result.elapsed_s = Seconds(Clock::now() - started);
  return result;
}

}  // namespace

int PlannedTrials(const Scenario& s, const SuiteOptions& o) {
  return o.only_trial ? 1 : ShareOf(TrialsFor(s, o), o.shard);
}

std::string Slug(const std::string& name) {
  std::string out;
  for (char c : name) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '-';
  return out;
}

std::string ReplayCommand(const Scenario& s, uint64_t seed, int trial, bool exhaustive) {
  return "killpoint run " + Quote(s.file.string()) + (exhaustive ? " --exhaustive" : "") + " --seed " +
         std::to_string(seed) + " --trial " + std::to_string(trial) + " --keep";
}

Result<RunResults> RunSuite(const std::vector<Scenario>& scenarios, const SuiteOptions& o) {
  auto started = Clock::now();
  RunResults results;
  results.killpoint_version = KILLPOINT_VERSION;
  results.seed = o.seed;
  results.started_at = UtcNow();
  results.shard = o.shard;
  std::error_code ec;
  fs::create_directories(o.out, ec);
  if (ec) return Error::BadInput("cannot create output folder " + o.out.string() + ": " + ec.message());
  auto root = SandboxRoot::Make(o.sandbox_root, o.keep_sandboxes, StorageFor(o.real_disk));
  if (!root) return root.error();
  TrialOptions to{o.bindir, root.value()->path(), o.keep_sandboxes};
  to.real_fsync = o.real_disk;
  for (const Scenario& s : scenarios) {
    auto r = RunScenario(s, o, to);
    if (!r) return r.error();
    results.scenarios.push_back(std::move(r.value()));
    results.elapsed_s = Seconds(Clock::now() - started);
    if (Status st = WriteResults(o.out, results); !st) return st.error();
  }
  return results;
}

}  // namespace killpoint
