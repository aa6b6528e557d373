#include "suite/suite.h"

#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <ctime>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "counterexample/counterexample.h"
#include "counterexample/final_state.h"
#include "counterexample/fired_only.h"
#include "history/history_log.h"
#include "plan/exhaustive.h"
#include "plan/planner.h"
#include "plan/point_pattern.h"
#include "plan/unstable_names.h"
#include "proc/interrupt.h"
#include "results/checkers.h"
#include "results/journal.h"
#include "results/layout.h"
#include "run/discovery.h"
#include "run/trial_runner.h"
#include "run/trial_services.h"
#include "suite/example_candidates.h"
#include "suite/job_commit.h"
#include "suite/ordered_fold.h"
#include "suite/run_manifest.h"
#include "suite/shard.h"
#include "util/absolute_path.h"
#include "util/atomic_file.h"
#include "util/shell_quote.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// The journals' group commit (ScenarioTrials::Commit): how long the committer waits for more
// finished trials once one has finished, and how many each worker may have waiting (sandboxes
// included, so memory and /dev/shm stay flat). 10 ms is a few small trials, and nothing against
// a trial that takes longer: the commit is off the workers' path.
constexpr auto kBatchWindow = std::chrono::milliseconds(10);
constexpr int kBatchPerWorker = 8;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

std::string UtcNow() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
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
  r.exercise.min_exercised = s.min_exercised;
  for (const auto& name : s.must_hold) r.invariants.push_back({name, kMustHold, 0, 0, {}, {}});
  for (const auto& name : s.expected_violations)
    r.invariants.push_back({name, kExpectedViolation, 0, 0, {}, {}});
  return r;
}

fs::path CounterexamplePath(const SuiteOptions& o, const Scenario& s, int trial,
                            const std::string& invariant) {
  return TrialCounterexampleFile(ScenarioDir(o.out, s.name), trial, invariant);
}

// The counterexample file of a trial that may be one of `invariant`'s examples, for
// `killpoint replay FILE`. `scenario_text` is the scenario file's text, embedded whole.
Status SaveCounterexample(const Scenario& s, const SuiteOptions& o, const TrialRecord& t,
                          const std::vector<Verdict>& verdicts, const std::string& invariant,
                          const std::string& scenario_text) {
  CounterexampleFile c;
  c.killpoint_version = KILLPOINT_VERSION;
  c.scenario_file = fs::absolute(s.file).string();
  c.scenario_name = s.name;
  c.scenario_text = scenario_text;
  c.source = "run";
  // Only the faults that happened (counterexample/fired_only.h); the history to match.
  TrialExercise exercise = ExerciseOf(t.plan, t.events);
  c.plan = FiredOnly(t.plan, exercise);
  c.invariant = invariant;
  for (const Verdict& v : verdicts) {
    if (v.invariant == invariant) c.explanation = v.explanation;
  }
  c.verdicts = verdicts;
  c.events = HistoryOfFiredOnly(t.plan, exercise, t.events, s.LoadsShim());
  c.final_state = CaptureFinalState(s, t.sandbox.work(), t.events);
  fs::path file = CounterexamplePath(o, s, t.plan.trial, invariant);
  c.reproduce = "killpoint replay " + ShellQuote(AbsolutePath(file).string());
  return WriteCounterexample(file, c);
}

// The scenario's folder, made if it is not there yet: its name must survive a power loss
// with the journals in it.
Status MakeScenarioDir(const fs::path& dir) {
  std::error_code ec;
  if (fs::is_directory(dir, ec)) return Ok();
  fs::create_directories(dir, ec);
  if (ec) return Error::Harness("cannot create " + dir.string() + ": " + ec.message());
  return SyncDirectory(dir.parent_path());
}

// A new run into the same folder starts the journals afresh.
Status StartJournals(const fs::path& dir) {
  if (Status st = MakeScenarioDir(dir); !st) return st;
  std::error_code ec;
  fs::remove(HistoryJournal(dir), ec);
  fs::remove(TrialsJournal(dir), ec);
  fs::remove_all(CounterexampleDir(dir), ec);
  return Ok();
}

// The trials of one scenario, run by `jobs` workers (docs/performance.md, "Parallel
// trials"). Each worker takes the next trial, runs and checks it, formats its journal lines and
// hands it to the committer thread. The committer takes whatever finished meanwhile as one
// batch: each trial's counterexample files (while it may be an example), then the batch's
// journal lines in one group commit (journal.h), then the fold, in trial order, of every trial
// that can be folded now. So the results, the examples and the counterexample files are the
// same whatever `jobs` is; a finished trial is in the journals as soon as its batch is, whether
// or not an earlier one still runs; and a worker never waits for an fsync.
class ScenarioTrials {
 public:
  ScenarioTrials(const Scenario& s, const SuiteOptions& o, const TrialOptions& to, fs::path dir,
                 const std::vector<ExhaustiveTry>& space, std::vector<int> order,
                 ScenarioResult& result, const std::vector<CrashPoint>& discovered)
      : s_(s),
        o_(o),
        to_(to),
        dir_(std::move(dir)),
        space_(space),
        discovered_(discovered),
        result_(result),
        fold_(order),
        candidates_(kMaxExamples) {
    order_ = std::move(order);
  }

  // Folds the trials a resumed run finished before, and leaves the others to Run.
  void Recovered(std::map<int, FinishedTrial> done) {
    for (int trial : order_) {
      auto it = done.find(trial);
      if (it == done.end()) {
        todo_.push_back(trial);
        continue;
      }
      for (const Verdict& v : it->second.verdicts) {
        if (!v.held) candidates_.Add(v.invariant, trial);
      }
      FoldIn(fold_.Finish(trial, std::move(it->second)));
    }
  }

  Status Run(int jobs) {
    jobs = std::max(1, std::min<int>(jobs, static_cast<int>(todo_.size())));
    max_waiting_ = static_cast<size_t>(kBatchPerWorker * jobs);  // held at most: memory stays flat
    workers_left_ = jobs;
    std::thread committer([this] { Commit(); });
    std::vector<std::thread> workers;
    for (int i = 1; i < jobs; ++i) workers.emplace_back([this] { Work(); });
    Work();
    for (std::thread& w : workers) w.join();
    committer.join();
    if (error_) return *error_;
    if (o_.stop.stop_requested()) {
      FoldIn(fold_.Rest());  // the partial results: every finished trial, in trial order
      return Ok();
    }
    return RemoveStaleCounterexamples();
  }

 private:
  struct Finished {
    TrialRecord record;  // its sandbox stays until committed: counterexamples read it
    std::vector<Verdict> verdicts;
    JournalEntry journal;
  };

  void Work() {
    // the worker's, for all its trials
    if (auto services = TrialServices::Start(s_.services, to_.sandbox_root, to_.server_pool);
        services) {
      RunTrials(services.value());
    } else {
      Fail(services.error());
    }
    std::lock_guard<std::mutex> lock(mu_);
    --workers_left_;
    ready_.notify_one();
  }

  void RunTrials(TrialServices& services) {
    while (!stop_.load() && !o_.stop.stop_requested()) {
      size_t i = next_.fetch_add(1);
      if (i >= todo_.size()) break;
      int trial = todo_[i];
      Plan plan = o_.exhaustive ? MakeExhaustivePlan(s_, o_.seed, trial, space_[trial])
                                : MakePlan(s_, o_.seed, trial, discovered_);
      auto record = RunTrial(s_, plan, to_, &services);
      if (!record && o_.stop.stop_requested()) break;  // the trial in flight is abandoned
      if (!record) {
        Fail(record.error());
        break;
      }
      CheckInput input{s_, record.value().plan, record.value().events,
                       record.value().sandbox.work(), record.value().services};
      auto checked = CheckTrial(input, AllCheckers());
      if (!checked) {  // the scenario points a checker at what the job does not have: exit 2
        Fail(checked.error());
        break;
      }
      std::vector<Verdict> verdicts = std::move(checked.value());
      JournalEntry journal = FormatFinishedTrial(plan, record.value().events, verdicts);
      std::unique_lock<std::mutex> lock(mu_);
      room_.wait(lock, [&] { return finished_.size() < max_waiting_ || stop_.load(); });
      finished_.push_back({std::move(record.value()), std::move(verdicts), std::move(journal)});
      // The committer waits for a batch's first trial, then for a full batch (Commit).
      if (finished_.size() == 1 || finished_.size() >= max_waiting_) ready_.notify_one();
    }
  }

  void Fail(Error e) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!error_) error_ = std::move(e);
    stop_ = true;
    room_.notify_all();
    ready_.notify_all();
  }

  // The committer thread: batches until every worker is done and nothing waits. Once a trial
  // has finished, it gives the workers kBatchWindow to finish more before it commits them all:
  // a commit is two fdatasyncs, which cost a small trial's harness as much CPU as all the rest
  // of its work (docs/performance.md, "Group commit over a window"). A full batch, the last
  // worker's end, a failure or an interrupt commits at once.
  void Commit() {
    for (;;) {
      std::vector<Finished> batch;
      {
        std::unique_lock<std::mutex> lock(mu_);
        ready_.wait(lock, [&] { return !finished_.empty() || workers_left_ == 0; });
        if (finished_.empty()) return;
        ready_.wait_for(lock, kBatchWindow, [&] {
          return finished_.size() >= max_waiting_ || workers_left_ == 0 || stop_.load() ||
                 o_.stop.stop_requested();
        });
        batch.swap(finished_);
        room_.notify_all();
      }
      if (Status st = CommitBatch(batch); !st) {
        Fail(st.error());
        return;
      }
    }
  }

  // The counterexample files first, the journals next: once its trials line is there, a trial
  // is finished and everything it needs is on disk (journal.h).
  Status CommitBatch(std::vector<Finished>& batch) {
    std::vector<std::pair<std::string, int>> pushed_out;
    std::vector<JournalEntry> journal;
    for (Finished& f : batch) {
      if (Status st = SaveCandidates(f, pushed_out); !st) return st;
      journal.push_back(std::move(f.journal));
    }
    if (Status st = AppendFinishedTrials(dir_, journal); !st) return st;
    // Only now: a crash before leaves a file too many (removed at the end), never one missing.
    for (const auto& [invariant, other] : pushed_out) {
      std::error_code ec;
      fs::remove(CounterexamplePath(o_, s_, other, invariant), ec);
    }
    std::vector<std::pair<int, FinishedTrial>> ready;
    for (Finished& f : batch) {
      const int trial = f.record.plan.trial;
      FinishedTrial done{f.record.plan, f.verdicts, ExerciseOf(f.record.plan, f.record.events)};
      for (auto& t : fold_.Finish(trial, std::move(done))) ready.push_back(std::move(t));
      if (o_.on_trial)
        o_.on_trial(s_, trial, f.verdicts,
                    o_.keep_sandboxes ? f.record.sandbox.root() : fs::path());
    }
    FoldIn(std::move(ready));
    return Ok();
  }

  Status SaveCandidates(const Finished& f, std::vector<std::pair<std::string, int>>& pushed_out) {
    for (const Verdict& v : f.verdicts) {
      if (v.held || !Listed(v.invariant)) continue;
      ExampleCandidates::Added added = candidates_.Add(v.invariant, f.record.plan.trial);
      if (added.pushed_out) pushed_out.emplace_back(v.invariant, *added.pushed_out);
      if (!added.candidate) continue;
      if (scenario_text_.empty()) {
        auto read = ReadFile(s_.file);
        if (!read) return read.error();
        scenario_text_ = read.value();
      }
      if (Status st = SaveCounterexample(s_, o_, f.record, f.verdicts, v.invariant, scenario_text_);
          !st) {
        return st;
      }
    }
    return Ok();
  }

  bool Listed(const std::string& invariant) const {
    return std::any_of(result_.invariants.begin(), result_.invariants.end(),
                       [&](const InvariantResult& r) { return r.name == invariant; });
  }

  // Adds trials to the results in trial order; an example points at its counterexample file,
  // which the commit wrote while the trial could become one (a resumed run: before it stopped).
  void FoldIn(std::vector<std::pair<int, FinishedTrial>> trials) {
    for (auto& [trial, t] : trials) {
      result_.Add(t.plan, t.verdicts,
                  ReplayCommand(s_, o_.seed, trial, o_.exhaustive, result_.exhaustive_limit),
                  t.exercise);
      for (InvariantResult& inv : result_.invariants) {
        if (inv.examples.empty() || inv.examples.back().trial != trial) continue;
        fs::path file = CounterexamplePath(o_, s_, trial, inv.name);
        std::error_code ec;
        if (fs::exists(file, ec)) inv.examples.back().file = AbsolutePath(file).string();
      }
    }
  }

  // A finished scenario keeps the counterexample files of its examples only: a parallel or
  // resumed run may have left one of a trial that was pushed out of them.
  Status RemoveStaleCounterexamples() {
    std::set<fs::path> examples;
    for (const InvariantResult& inv : result_.invariants) {
      for (const Counterexample& e : inv.examples) {
        if (!e.file.empty()) examples.insert(AbsolutePath(e.file));
      }
    }
    std::error_code ec;
    fs::directory_iterator files(CounterexampleDir(dir_), ec);
    if (ec) return Ok();  // no counterexample at all
    for (const auto& entry : files) {
      if (!examples.count(AbsolutePath(entry.path()))) fs::remove(entry.path(), ec);
    }
    return Ok();
  }

  const Scenario& s_;
  const SuiteOptions& o_;
  const TrialOptions& to_;
  const fs::path dir_;
  const std::vector<ExhaustiveTry>& space_;    // trial i tries space_[i] (already spread)
  const std::vector<CrashPoint>& discovered_;  // what the scenario's patterns draw from
  ScenarioResult& result_;
  std::vector<int> order_;  // every trial of this run, in trial order
  std::vector<int> todo_;   // those still to run
  std::atomic<size_t> next_{0};
  std::atomic<bool> stop_{false};
  // Between the workers and the committer:
  std::mutex mu_;
  std::condition_variable ready_, room_;
  std::vector<Finished> finished_;
  size_t max_waiting_ = kBatchPerWorker;
  int workers_left_ = 0;
  std::optional<Error> error_;
  // The committer's own (and Recovered's and Run's, before and after it runs):
  OrderedFold<FinishedTrial> fold_;
  ExampleCandidates candidates_;
  std::string scenario_text_;
};

// Runs the scenario's trials into `result`. Interrupted (o.stop stopped), it returns
// early with the trials finished so far in `result`; the unfinished ones are not recorded.
Status RunScenario(const Scenario& s, const SuiteOptions& o, const TrialOptions& to,
                   ScenarioResult& result) {
  auto started = Clock::now();
  result = EmptyResult(s);
  result.interception = InterceptionUsed(s, o.intercept);
  result.exercise.deferred_to_merge = o.shard.has_value();
  fs::path dir = ScenarioDir(o.out, s.name);
  std::map<int, FinishedTrial> done;
  if (o.resume) {
    // A scenario the interrupted run never reached has no folder yet: its trials all run now.
    if (Status st = MakeScenarioDir(dir); !st) return st;
    auto recovered = RecoverJournals(dir);
    if (!recovered) return recovered.error();
    done = std::move(recovered.value().trials);
  } else if (Status st = StartJournals(dir); !st) {
    return st;
  }
  std::vector<ExhaustiveTry> space;  // trial i tries space[i]
  if (o.exhaustive) {
    auto by_date = DiscoverEveryDate(s, to);
    if (!by_date) return by_date.error();
    // A second run tells the names that change from run to run: planned by their shape.
    auto again = DiscoverEveryDate(s, to);
    if (!again) return again.error();
    for (size_t d = 0; d < by_date.value().size() && d < again.value().size(); ++d) {
      std::vector<RenamedPoint> renamed;
      by_date.value()[d].points =
          PlanUnstableNamesByShape(by_date.value()[d].points, again.value()[d].points, &renamed);
      for (RenamedPoint& r : renamed) result.renamed.push_back(std::move(r));
    }
    std::vector<ExhaustiveTry> whole = ExhaustiveTries(s, by_date.value());
    result.exhaustive_total = static_cast<int>(whole.size());
    result.exhaustive_dates = static_cast<int>(s.dates.size());
    // Nothing to try is nothing tried: never "0 trials, every invariant held".
    if (whole.empty()) result.exercise.no_points = true;
    int count = std::min<int>(o.exhaustive_limit, result.exhaustive_total);
    if (count < result.exhaustive_total) result.exhaustive_limit = count;
    if (o.only_trial && *o.only_trial >= count) {
      return Error::BadInput(
          s.file.string() + ": --trial " + std::to_string(*o.only_trial) + " is beyond its " +
          (count < result.exhaustive_total
               ? std::to_string(count) + " trials of --limit " + std::to_string(count)
               : std::to_string(whole.size()) + " exhaustive combinations"));
    }
    // Under a --limit the trials spread over the whole space, never a prefix of it.
    for (int trial = 0; trial < count; ++trial) {
      space.push_back(whole[SpreadTrial(trial, count, whole.size())]);
    }
  }
  // A scenario with patterns among its failpoints draws them from the points a fault-free
  // run passes, and one with max_occurrence > 1 draws no occurrence its points never reach
  // (plan/planner.h): one discovery, as --exhaustive makes.
  std::vector<CrashPoint> discovered;
  bool draws_from_discovery =
      s.max_occurrence > 1 || std::any_of(s.failpoints.begin(), s.failpoints.end(), IsPointPattern);
  if (!o.exhaustive && !s.failpoints.empty() && draws_from_discovery) {
    auto points = DiscoverPoints(s, "", to);
    if (!points) return points.error();
    auto again = DiscoverPoints(s, "", to);  // the names that change: planned by their shape
    if (!again) return again.error();
    discovered =
        KillablePoints(s, PlanUnstableNamesByShape(points.value(), again.value(), &result.renamed));
    // Patterns that match no point the job passes: no trial can kill where the scenario says.
    if (discovered.empty()) result.exercise.no_points = true;
  }
  int count = o.exhaustive ? static_cast<int>(space.size()) : TrialsFor(s, o);
  int first = o.only_trial.value_or(0);
  int last = o.only_trial ? first + 1 : count;
  std::vector<int> order;
  for (int trial = first; trial < last; ++trial) {
    if (o.only_trial || InShard(trial, o.shard)) order.push_back(trial);
  }
  for (const auto& [trial, t] : done) {
    if (!std::binary_search(order.begin(), order.end(), trial)) {
      return Error::BadInput(TrialsJournal(dir).string() + ": trial " + std::to_string(trial) +
                             " is not one this run makes: was it started with other options?");
    }
  }
  result.job_commit = JobCommit(s, o.bindir);
  if (o.on_scenario) o.on_scenario(s, static_cast<int>(order.size()));
  ScenarioTrials trials(s, o, to, dir, space, std::move(order), result, discovered);
  trials.Recovered(std::move(done));
  Status st = trials.Run(o.jobs);
  result.elapsed_s = Seconds(Clock::now() - started);
  return st;
}

// A run killed before it wrote run.json left nothing to continue: its --out folder is missing or
// empty. --resume then starts the run, as the interrupted command would have. A folder with
// anything else in it and no run.json is refused (ReadManifest): it may be someone else's.
bool NothingToResume(const fs::path& out) {
  std::error_code ec;
  if (!fs::exists(out, ec)) return !ec;
  if (!fs::is_directory(out, ec)) return false;
  for (fs::directory_iterator it(out, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path() != LockFile(out)) return false;  // the lock the command itself holds
  }
  return !ec;
}

// Writes OUT/run.json for a new run, or checks it for --resume (then the run keeps its start).
Status StartRun(const std::vector<Scenario>& scenarios, const SuiteOptions& o,
                RunResults& results) {
  auto now = MakeManifest(scenarios, o, results.started_at);
  if (!now) return now.error();
  if (o.resume && !NothingToResume(o.out)) {
    auto then = ReadManifest(o.out);
    if (!then) return then.error();
    if (Status s = SameTrials(then.value(), now.value(), RunManifestFile(o.out).string()); !s)
      return s;
    results.started_at = then.value().started_at;
    // Every journal is checked before anything is written: a damaged one changes nothing.
    for (const Scenario& sc : scenarios) {
      if (auto j = ReadJournals(ScenarioDir(o.out, sc.name)); !j) return j.error();
    }
  } else if (Status s = WriteManifest(o.out, now.value()); !s) {
    return s;
  }
  // From now on results.json says the run is going: read after a crash, it says partial.
  return WriteResultsFile(o.out, results);
}

}  // namespace

std::string InterceptionUsed(const Scenario& s, Interception intercept) {
  return s.LoadsShim() ? std::string(NameOf(intercept)) : kNoInterception;
}

std::string InterceptionUsed(const std::vector<Scenario>& scenarios, Interception intercept) {
  bool any = std::any_of(scenarios.begin(), scenarios.end(),
                         [](const Scenario& s) { return s.LoadsShim(); });
  return any ? std::string(NameOf(intercept)) : kNoInterception;
}

int PlannedTrials(const Scenario& s, const SuiteOptions& o) {
  return o.only_trial ? 1 : ShareOf(TrialsFor(s, o), o.shard);
}

std::string ReplayCommand(const Scenario& s, uint64_t seed, int trial, bool exhaustive, int limit) {
  return "killpoint run " + ShellQuote(AbsolutePath(s.file).string()) +
         (exhaustive ? " --exhaustive" : "") +
         (exhaustive && limit > 0 ? " --limit " + std::to_string(limit) : "") + " --seed " +
         std::to_string(seed) + " --trial " + std::to_string(trial) + " --keep";
}

Status WriteResultsFile(const fs::path& out, const RunResults& results) {
  nlohmann::json j = results;
  return WriteFileAtomically(
      ResultsFile(out), j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

Result<RunResults> RunSuite(const std::vector<Scenario>& scenarios, const SuiteOptions& o) {
  auto started = Clock::now();
  RunResults results;
  results.killpoint_version = KILLPOINT_VERSION;
  results.seed = o.seed;
  results.started_at = UtcNow();
  results.shard = o.shard;
  results.partial = "running";
  results.interception = InterceptionUsed(scenarios, o.intercept);
  std::error_code ec;
  fs::create_directories(o.out, ec);
  if (ec)
    return Error::BadInput("cannot create output folder " + o.out.string() + ": " + ec.message());
  if (Status st = SyncDirectory(fs::absolute(o.out).parent_path()); !st) return st.error();
  if (Status st = StartRun(scenarios, o, results); !st) return st.error();
  auto root = SandboxRoot::Make(o.sandbox_root, o.keep_sandboxes, StorageFor(o.real_disk));
  if (!root) return root.error();
  // A server outlives its scenario: the next one of the same kind borrows it (a broker's boot
  // takes seconds). After `root`: its servers' folders are in it.
  ServerPool pool;
  TrialOptions to{o.bindir, root.value()->path(), o.keep_sandboxes};
  to.server_pool = &pool;
  to.real_fsync = o.real_disk;
  to.intercept = o.intercept;
  to.crash_checks = CheckCrashState;
  to.stop = o.stop;
  // results.json between scenarios is for whoever watches the run (the trials are in the
  // journals, which --resume reads): rewritten whole, it is refreshed only once the time since
  // its last write is ten times what that write took, so that it costs at most a tenth of
  // the run however many scenarios there are (issue 34: rewritten after each of 2,000, the
  // run was quadratic; scripts/bench-scenarios.sh).
  Clock::duration last_write{0};
  Clock::time_point written = Clock::now();
  for (const Scenario& s : scenarios) {
    if (o.stop.stop_requested()) break;
    ScenarioResult r;
    Status st = RunScenario(s, o, to, r);
    if (!st && !o.stop.stop_requested()) return st.error();
    results.scenarios.push_back(std::move(r));
    results.elapsed_s = Seconds(Clock::now() - started);
    if (o.stop.stop_requested()) break;
    if (Clock::now() - written < 10 * last_write) continue;
    auto writing = Clock::now();
    if (Status w = WriteResultsFile(o.out, results); !w) return w.error();
    written = Clock::now();
    last_write = written - writing;
  }
  results.partial = o.stop.stop_requested()
                        ? std::string("interrupted by ") + InterruptName(o.stop.signal())
                        : "";
  results.elapsed_s = Seconds(Clock::now() - started);
  if (Status w = WriteResultsFile(o.out, results); !w) return w.error();
  return results;
}

}  // namespace killpoint
