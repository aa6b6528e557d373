#include "suite/suite.h"

#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <map>
#include <memory>

#include "check/checker.h"
#include "counterexample/counterexample.h"
#include "counterexample/final_state.h"
#include "history/history_log.h"
#include "plan/exhaustive.h"
#include "plan/planner.h"
#include "run/discovery.h"
#include "run/interrupt.h"
#include "run/trial_runner.h"
#include "suite/job_commit.h"
#include "suite/journal.h"
#include "suite/run_manifest.h"
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
  for (const auto& name : s.expected_violations)
    r.invariants.push_back({name, kExpectedViolation, 0, 0, {}, {}});
  return r;
}

fs::path CounterexamplePath(const SuiteOptions& o, const Scenario& s, int trial,
                            const std::string& invariant) {
  return o.out / Slug(s.name) / "counterexamples" /
         ("trial-" + std::to_string(trial) + "-" + invariant + ".json");
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
      fs::path file = CounterexamplePath(o, s, t.plan.trial, inv.name);
      example.file = file.string();
      c.reproduce = "killpoint replay " + Quote(example.file);
      if (Status st = WriteCounterexample(file, c); !st) return st;
    }
  }
  return Ok();
}

// Resuming: the finished trials of the interrupted run, folded in trial order as the run folded
// them, their examples pointing at the counterexample files it wrote (before each trial's
// journal lines, so they are there).
Result<std::map<int, FinishedTrial>> Recover(const Scenario& s, const SuiteOptions& o,
                                             const fs::path& dir, ScenarioResult& result) {
  auto recovered = RecoverJournals(dir);
  if (!recovered) return recovered.error();
  for (const auto& [trial, t] : recovered.value().trials) {
    result.Add(t.plan, t.verdicts, ReplayCommand(s, o.seed, trial, o.exhaustive));
  }
  for (InvariantResult& inv : result.invariants) {
    for (Counterexample& example : inv.examples) {
      fs::path file = CounterexamplePath(o, s, example.trial, inv.name);
      std::error_code ec;
      if (fs::exists(file, ec)) example.file = file.string();
    }
  }
  return std::move(recovered.value().trials);
}

Status StartJournals(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Error::Harness("cannot create " + dir.string() + ": " + ec.message());
  // A new run into the same folder starts the journals afresh.
  fs::remove(dir / "history.jsonl", ec);
  fs::remove(dir / "trials.jsonl", ec);
  fs::remove_all(dir / "counterexamples", ec);
  // The folder's name must survive a power loss with the journals in it.
  if (Status st = SyncDirectory(dir.parent_path()); !st) return st;
  return Ok();
}

// Runs the scenario's trials into `result`. Interrupted (InterruptSignal() != 0), it returns
// early with the trials finished so far in `result`; the unfinished one is not recorded.
Status RunScenario(const Scenario& s, const SuiteOptions& o, const TrialOptions& to,
                   ScenarioResult& result) {
  auto started = Clock::now();
  result = EmptyResult(s);
  fs::path dir = o.out / Slug(s.name);
  std::map<int, FinishedTrial> done;
  if (o.resume) {
    auto recovered = Recover(s, o, dir, result);
    if (!recovered) return recovered.error();
    done = std::move(recovered.value());
  } else if (Status st = StartJournals(dir); !st) {
    return st;
  }
  std::vector<AttemptFault> space;
  if (o.exhaustive) {
    auto points = DiscoverPoints(s, "", to);
    if (!points) return points.error();
    space = ExhaustiveSpace(s, points.value());
    result.exhaustive_total = static_cast<int>(space.size());
    if (o.only_trial && *o.only_trial >= result.exhaustive_total) {
      return Error::BadInput(s.file.string() + ": --trial " + std::to_string(*o.only_trial) +
                             " is beyond its " + std::to_string(space.size()) +
                             " exhaustive combinations");
    }
  }
  int count = o.exhaustive ? std::min<int>(o.exhaustive_limit, static_cast<int>(space.size()))
                           : TrialsFor(s, o);
  int first = o.only_trial.value_or(0);
  int last = o.only_trial ? first + 1 : count;
  for (const auto& [trial, t] : done) {
    if (trial < first || trial >= last || (!o.only_trial && !InShard(trial, o.shard))) {
      return Error::BadInput((dir / "trials.jsonl").string() + ": trial " + std::to_string(trial) +
                             " is not one this run makes: was it started with other options?");
    }
  }
  result.job_commit = JobCommit(s, o.bindir);
  if (o.on_scenario) o.on_scenario(s, o.only_trial ? 1 : ShareOf(last, o.shard));
  for (int trial = first; trial < last; ++trial) {
    if (InterruptSignal() != 0) break;
    if (!o.only_trial && !InShard(trial, o.shard)) continue;
    if (done.count(trial)) continue;  // finished before the run was interrupted
    Plan plan = o.exhaustive ? MakeExhaustivePlan(s, o.seed, trial, space[trial])
                             : MakePlan(s, o.seed, trial);
    auto record = RunTrial(s, plan, to);
    if (!record && InterruptSignal() != 0) break;  // the trial in flight is abandoned
    if (!record) return record.error();
    CheckInput input{s, record.value().plan, record.value().events, record.value().sandbox.work()};
    std::vector<Verdict> verdicts = CheckTrial(input);
    result.Add(plan, verdicts, ReplayCommand(s, o.seed, trial, o.exhaustive));
    // The counterexample files first, the journals last: once its trials line is there, the
    // trial is finished and everything it needs is on disk (journal.h).
    if (Status st = SaveCounterexamples(s, o, record.value(), verdicts, result); !st)
      return st.error();
    if (Status st = AppendFinishedTrial(dir, record.value().plan, record.value().events, verdicts);
        !st) {
      return st.error();
    }
    if (o.on_trial)
      o.on_trial(s, trial, verdicts, o.keep_sandboxes ? record.value().sandbox.root() : fs::path());
  }
  result.elapsed_s = Seconds(Clock::now() - started);
  return Ok();
}

// Writes OUT/run.json for a new run, or checks it for --resume (then the run keeps its start).
Status StartRun(const std::vector<Scenario>& scenarios, const SuiteOptions& o,
                RunResults& results) {
  auto now = MakeManifest(scenarios, o, results.started_at);
  if (!now) return now.error();
  if (o.resume) {
    auto then = ReadManifest(o.out);
    if (!then) return then.error();
    if (Status s = SameTrials(then.value(), now.value(), (o.out / "run.json").string()); !s)
      return s;
    results.started_at = then.value().started_at;
    // Every journal is checked before anything is written: a damaged one changes nothing.
    for (const Scenario& sc : scenarios) {
      if (auto j = ReadJournals(o.out / Slug(sc.name)); !j) return j.error();
    }
  } else if (Status s = WriteManifest(o.out, now.value()); !s) {
    return s;
  }
  // From now on results.json says the run is going: read after a crash, it says partial.
  return WriteResultsFile(o.out, results);
}

}  // namespace

int PlannedTrials(const Scenario& s, const SuiteOptions& o) {
  return o.only_trial ? 1 : ShareOf(TrialsFor(s, o), o.shard);
}

std::string Slug(const std::string& name) {
  std::string out;
  for (char c : name)
    out +=
        (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '-';
  return out;
}

std::string ReplayCommand(const Scenario& s, uint64_t seed, int trial, bool exhaustive) {
  return "killpoint run " + Quote(s.file.string()) + (exhaustive ? " --exhaustive" : "") +
         " --seed " + std::to_string(seed) + " --trial " + std::to_string(trial) + " --keep";
}

Status WriteResultsFile(const fs::path& out, const RunResults& results) {
  nlohmann::json j = results;
  return WriteFileAtomically(
      out / "results.json", j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

Result<RunResults> RunSuite(const std::vector<Scenario>& scenarios, const SuiteOptions& o) {
  auto started = Clock::now();
  RunResults results;
  results.killpoint_version = KILLPOINT_VERSION;
  results.seed = o.seed;
  results.started_at = UtcNow();
  results.shard = o.shard;
  results.partial = "running";
  std::error_code ec;
  fs::create_directories(o.out, ec);
  if (ec)
    return Error::BadInput("cannot create output folder " + o.out.string() + ": " + ec.message());
  if (Status st = SyncDirectory(fs::absolute(o.out).parent_path()); !st) return st.error();
  if (Status st = StartRun(scenarios, o, results); !st) return st.error();
  auto root = SandboxRoot::Make(o.sandbox_root, o.keep_sandboxes, StorageFor(o.real_disk));
  if (!root) return root.error();
  TrialOptions to{o.bindir, root.value()->path(), o.keep_sandboxes};
  to.real_fsync = o.real_disk;
  for (const Scenario& s : scenarios) {
    if (InterruptSignal() != 0) break;
    ScenarioResult r;
    Status st = RunScenario(s, o, to, r);
    if (!st && InterruptSignal() == 0) return st.error();
    results.scenarios.push_back(std::move(r));
    results.elapsed_s = Seconds(Clock::now() - started);
    if (InterruptSignal() != 0) break;
    if (Status w = WriteResultsFile(o.out, results); !w) return w.error();
  }
  results.partial = InterruptSignal() != 0
                        ? std::string("interrupted by ") + InterruptName(InterruptSignal())
                        : "";
  results.elapsed_s = Seconds(Clock::now() - started);
  if (Status w = WriteResultsFile(o.out, results); !w) return w.error();
  return results;
}

}  // namespace killpoint
