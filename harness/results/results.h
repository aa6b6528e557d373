// The results of a run: per scenario, per invariant, how many trials held or violated it,
// with the first counterexamples and the command that replays each. Plain data with JSON;
// every renderer (terminal, HTML, and later JUnit and Markdown) reads only this.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "check/verdict.h"
#include "history/exercise.h"
#include "plan/plan.h"
#include "plan/unstable_names.h"
#include "util/name_table.h"

namespace killpoint {

inline constexpr const char* kMustHold = "must_hold";
inline constexpr const char* kExpectedViolation = "expected_violation";

// The interception of a run or scenario whose jobs needed none (no syscall point, only the
// process model, no writes_in_sandbox: Scenario::LoadsShim false).
inline constexpr const char* kNoInterception = "none";

// Whether `interception` (RunResults::interception, ScenarioResult::interception) names a
// backend that intercepted: "seccomp", "preload", or shards' "mixed: seccomp, preload"; not
// "none" and not "" (unknown: results of before the field).
bool Intercepted(const std::string& interception);

// The interceptions of merged parts, as one: the common value, or "mixed: A, B" with each
// distinct value once in the order given ("unknown" for ""); "" when every part's is "".
std::string MergedInterception(const std::vector<std::string>& parts);

// What a person reads in the table.
// kNotExercised: it held, but in a scenario whose planned kills did not fire
// (ScenarioResult::StatusOf): it was not tested where the scenario said.
enum class InvariantStatus { kHeld, kViolated, kShown, kNotDemonstrated, kNotExercised };
inline constexpr auto kInvariantStatusNames = MakeNameTable<InvariantStatus>({
    {InvariantStatus::kHeld, "held"},
    {InvariantStatus::kViolated, "VIOLATED"},
    {InvariantStatus::kShown, "expected, shown"},
    {InvariantStatus::kNotDemonstrated, "expected, not demonstrated"},
    {InvariantStatus::kNotExercised, "NOT EXERCISED"},
});
static_assert(kInvariantStatusNames.Unique());
std::string ToString(InvariantStatus s);

struct Counterexample {
  int trial = 0;
  uint64_t seed = 0;
  std::string plan;  // Plan::Summary()
  std::string
      explanation;     // the verdict's sentence, with the persistence model it was reached under
  std::string replay;  // the command that runs this trial again
  std::string file;    // its counterexample file, as the run named it; empty: none saved
  std::string hint;    // the likely cause and where the docs say how to fix it (Verdict::hint)
  // The replay command, then, when a counterexample file was saved, `killpoint replay FILE`:
  // one command a line.
  std::string ReplayCommands() const {
    return file.empty() ? replay : replay + "\nkillpoint replay " + file;
  }
  bool operator==(const Counterexample&) const = default;
};

// How many examples an invariant keeps: its first violating trials, in trial order.
inline constexpr size_t kMaxExamples = 3;

struct InvariantResult {
  std::string name;
  std::string expectation;  // kMustHold or kExpectedViolation
  int held = 0;
  int violated = 0;
  std::map<std::string, int> violated_by_model;  // model(s) of the violating trials' kills
  std::vector<Counterexample> examples;          // the first few violations

  InvariantStatus Status() const;
  // The likely cause of its violations: the first example's hint that is not empty.
  std::string Hint() const;
  bool operator==(const InvariantResult&) const = default;
};

// Trials and violations by the trial's first planned kill: "[after:|mid:]point[#hit]".
struct PointStat {
  int trials = 0;
  int violations = 0;                       // trials where any invariant was violated
  std::map<std::string, int> by_invariant;  // trials that violated each invariant (the heat map)
  bool operator==(const PointStat&) const = default;
};

// Planned kills at one planned point (a name or a pattern) across the trials.
struct PointExercise {
  int planned = 0;
  int fired = 0;
  bool operator==(const PointExercise&) const = default;
};

// What a scenario's trials exercised of what their plans asked for (history/exercise.h), and
// the "not exercised" verdict: a scenario whose planned kills did not fire fails the gate
// (exit 4) however its invariants came out, since they were not tested where it said.
struct ExerciseStats {
  int trials_with_kill = 0;  // trials with at least one planned kill
  int trials_all_fired = 0;  // of those, the trials in which every planned kill fired
  int kills_planned = 0;
  int kills_unfired = 0;
  int other_faults = 0;                         // pauses, overlaps and downstream faults planned
  int other_unfired = 0;                        // of those, the ones that never happened
  std::map<std::string, PointExercise> points;  // by planned kill point
  // Trials in which a fired kill applied each persistence model: the models the run ran under,
  // by name (NameOf), as results.json keys them.
  std::map<std::string, int> models;
  // The scenario's "min_exercised": the share of trials with a planned kill in which every
  // planned kill must fire. None: the default rule, every planned point fires in some trial.
  std::optional<double> min_exercised;
  // Whether any trial's exercise was known (results of before issue 17 have none).
  bool known = false;
  // Trials in which the supervisor refused each system call (TrialExercise::refused): such a
  // scenario is not exercised, whatever its kills did.
  std::map<std::string, int> refused;
  // The fault-free discovery run found no crash point to plan from (the job passed none of the
  // scenario's patterns, or --exhaustive had no combination to try): not exercised.
  bool no_points = false;
  // A shard's share of a run (--shard): whether every planned kill fired somewhere is decided
  // across every shard, by `killpoint merge`; a shard records what fired in its trials and
  // counts only refused calls and no_points as not exercised (docs/sharding.md).
  bool deferred_to_merge = false;

  void Add(const TrialExercise& t);
  // The planned points at which no planned kill fired in any trial, sorted.
  std::vector<std::string> NeverReached() const;
  bool NotExercised() const;
  // Why it is not exercised, or what was left out, for the reports; empty when nothing was.
  // `with_points`: ending with "; never reached: POINTS".
  std::string Explanation(bool with_points = true) const;
  bool operator==(const ExerciseStats&) const = default;
};

// A path the trials changed outside the sandbox (history/outside_write.h): in how many trials,
// by which ops. The reports show it as a warning, whether or not writes_in_sandbox is checked.
struct OutsideWriteStat {
  std::string path;
  std::string kind;
  std::vector<std::string> ops;  // of every trial, sorted
  int trials = 0;
  bool operator==(const OutsideWriteStat&) const = default;
};

// How many paths outside the sandbox a scenario's results keep (a job that writes a new random
// name each trial would fill them): the first ones, in order of first appearance by trial.
inline constexpr size_t kMaxOutsidePaths = 20;

// The trials whose job failed the same way before any crash point (history/start_failure.h).
struct StartFailureStats {
  int trials = 0;      // trials that ended so
  bool same = true;    // all of them with one exit code
  StartFailure first;  // the first such trial's exit code and stderr tail
  int first_trial = -1;

  void Add(int trial, const StartFailure& f);
  bool operator==(const StartFailureStats&) const = default;
};

// How many lines of a job's stderr the reports show for a job that never ran: its last ones,
// where a traceback ends with the exception.
inline constexpr size_t kNeverRanStderrLines = 12;

struct ScenarioResult {
  std::string name;
  std::string file;
  int trials = 0;
  double elapsed_s = 0;
  int exhaustive_total = 0;  // combinations of an exhaustive run; 0 for a sampled run
  int exhaustive_dates = 0;  // the dates whose first attempts an exhaustive run's kills cover
  // An exhaustive run's --limit when it was below exhaustive_total: its trials are spread over
  // every combination (plan/exhaustive.h, SpreadTrial); 0 when every combination was tried.
  int exhaustive_limit = 0;
  // Points whose names a second fault-free discovery did not repeat, and the shape they were
  // planned by (plan/unstable_names.h); empty when none changed or nothing was discovered.
  std::vector<RenamedPoint> renamed;
  std::vector<InvariantResult> invariants;
  std::map<std::string, PointStat> points;
  // By the models of each trial's kills, their names joined by '+' ("power+torn").
  std::map<std::string, int> trials_by_model;
  std::vector<PersistenceModel> models;  // the scenario's persistence models, as it declared them
  ExerciseStats exercise;
  // `git rev-parse HEAD` of the job under test, "-dirty" appended when its checkout has
  // uncommitted changes; empty when the job is not in a git checkout (or git is missing).
  std::string job_commit;
  std::vector<OutsideWriteStat> outside_writes;  // sorted by path, at most kMaxOutsidePaths
  int outside_more = 0;  // trials' writes to paths beyond those (a path counts once a trial)
  StartFailureStats start_failures;
  // What turned its job's file-system calls into crash points (channel/interception.h):
  // "seccomp" or "preload" when the scenario needed interception, kNoInterception when it did
  // not, "mixed: ..." for merged shards that differ; "" unknown (results of before).
  std::string interception;

  // Adds one finished trial's verdicts. `replay` reproduces it. `exercise`: which planned
  // faults happened (unknown, for a trial from a journal of before: counted from the plan).
  void Add(const Plan& plan, const std::vector<Verdict>& verdicts, const std::string& replay,
           const TrialExercise& exercise = TrialExercise{{}, 0, 0, false});
  // False in a scenario whose job never ran, or made a call the supervisor refused: nothing
  // was judged.
  bool MustHoldViolated() const;
  bool NotExercised() const { return exercise.NotExercised(); }
  // The supervisor refused a call the job made (io_uring_setup, ExerciseStats::refused): the
  // job ran crippled or with its operations unseen, so every invariant reads "not exercised",
  // a violation too, and the run exits 4 with the reason.
  bool Refused() const { return !exercise.refused.empty(); }
  // The job never ran: every trial failed the same way before any crash point (one exit code
  // in every attempt of every trial). No verdict: every invariant reads "not exercised", the
  // reports show why and the job's stderr, and the run exits 2 (cli/exit_codes.h).
  bool NeverRan() const;
  // Why the job never ran: "every attempt of its 3 trials exited with code 127 (command not
  // found) before reaching any crash point or calling the downstream ...", with what to check;
  // empty when it ran.
  std::string NeverRanExplanation() const;
  // The last kNeverRanStderrLines lines of the first such trial's stderr, each escaped
  // (util/printable.h); empty when it ran.
  std::vector<std::string> NeverRanStderr() const;
  // What an exhaustive run covered, for every report: "45 of 90 combinations tried (--limit 45,
  // spread over all of them: one in every 2.0), kills at every crash point, moment and model of
  // the first attempt of each of 2 dates; the attempts after a kill run fault-free". Empty for
  // a sampled run.
  std::string ExhaustiveCoverage() const;
  // The writes outside the sandbox as sentences for every report, one a path: "this job wrote
  // /var/lib/app/state.json outside its sandbox (open, rename) in 3 of 10 trials: no persistence
  // model applied to it, and the next trial sees it"; then the paths beyond the first
  // kMaxOutsidePaths. Empty when the trials wrote nothing outside.
  std::vector<std::string> OutsideWriteNotes() const;
  // When there are such writes and writes_in_sandbox is not checked: how to make them
  // violations (they are warnings). Else empty.
  std::string OutsideWriteHint() const;
  // r.Status(), except that "held" reads "not exercised" in a scenario not exercised, and
  // that every invariant does in a scenario whose job never ran.
  InvariantStatus StatusOf(const InvariantResult& r) const;
  // The models the trials ran under (a model counts once a kill applied it), else the
  // scenario's list for results of before.
  std::vector<std::string> ModelsRun() const;
  // "power 5/11, process 0/13": violations of `r` out of trials, per model; empty when the
  // scenario ran under one model only.
  std::string ByModel(const InvariantResult& r) const;
  bool operator==(const ScenarioResult&) const = default;
};

// Which share of the trials a `killpoint run --shard INDEX/COUNT` made: trial t belongs to
// shard t % COUNT, and `killpoint merge` folds the shards back into one run.
struct ShardInfo {
  int index = 0;
  int count = 1;
  bool operator==(const ShardInfo&) const = default;
};

struct RunResults {
  std::string killpoint_version;
  uint64_t seed = 0;
  std::string started_at;  // UTC, ISO 8601
  double elapsed_s = 0;
  std::vector<ScenarioResult> scenarios;
  std::optional<ShardInfo> shard;  // set when the run made one shard of the trials
  // Empty when the run made every trial it was asked to. Otherwise why these are partial
  // results: "running" (written while the run goes on: if it is read later, the harness died),
  // or "interrupted by SIGINT" / "interrupted by SIGTERM". `killpoint run ... --resume` ends it.
  std::string partial;
  // The backend that intercepted the jobs' file-system calls (channel/interception.h):
  // "seccomp" or "preload" when any of its scenarios needed interception, kNoInterception when
  // none did, "mixed: seccomp, preload" for merged shards run with different backends; ""
  // unknown (results of before the field: absent from results.json). docs/reports.md.
  std::string interception;

  bool MustHoldViolated() const;
  bool NotExercised() const;
  bool NeverRan() const;  // a scenario's job never ran
  bool Refused() const;   // a scenario's job made a call the supervisor refused
  int Trials() const;
  bool operator==(const RunResults&) const = default;
};

// "hint" only when there is one.
void to_json(nlohmann::json& j, const Counterexample& c);
void from_json(const nlohmann::json& j, Counterexample& c);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ShardInfo, index, count)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(StartFailureStats, trials, same, first, first_trial)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(OutsideWriteStat, path, kind, ops, trials)
void to_json(nlohmann::json& j, const PointStat& p);
void from_json(const nlohmann::json& j, PointStat& p);
void to_json(nlohmann::json& j, const ExerciseStats& e);
void from_json(const nlohmann::json& j, ExerciseStats& e);
void to_json(nlohmann::json& j, const InvariantResult& r);
void from_json(const nlohmann::json& j, InvariantResult& r);
void to_json(nlohmann::json& j, const ScenarioResult& r);
void from_json(const nlohmann::json& j, ScenarioResult& r);
void to_json(nlohmann::json& j, const RunResults& r);
void from_json(const nlohmann::json& j, RunResults& r);

}  // namespace killpoint
