// What every report format is rendered from: the results of one or more runs (one per OUT_DIR
// given to `killpoint report`, or the run that just finished), with the events of the trials
// that are counterexamples. Plain data: renderers are pure functions of it, and
// report_loader.h is the only code that reads it from disk.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "history/event.h"
#include "results/diff.h"
#include "results/results.h"

namespace killpoint {

struct RunReport {
  std::string source;  // the folder (or results file) it was read from; names it in the page
  RunResults results;
  // histories[i][trial]: the events of counterexample trials of results.scenarios[i].
  std::vector<std::map<int, std::vector<Event>>> histories;
  // history_notes[i]: why scenario i's timelines are missing ("...: not found"); empty if none.
  std::vector<std::string> history_notes;

  // The events of one trial, or nullptr when they were not loaded.
  const std::vector<Event>* Events(size_t scenario, int trial) const;
};

struct ReportData {
  std::vector<RunReport> runs;
  // The runs against a baseline (`run --baseline`): the Markdown summary leads with it.
  std::optional<RunDiff> baseline;

  bool MustHoldViolated() const;
  bool NotExercised() const;
  bool NeverRan() const;
  // A run of the report was interrupted (results.partial): what held, held in its finished
  // trials only, and no report may say "every must-hold invariant held".
  bool Partial() const;
  int Trials() const;
};

// One scenario of a report, with a stable anchor id for links ("s3"): names may repeat
// across runs and may contain anything, so ids are positions, not names.
struct ScenarioRef {
  const RunReport* run = nullptr;
  size_t index = 0;  // in run->results.scenarios
  std::string anchor;

  const ScenarioResult& result() const { return run->results.scenarios[index]; }
};

// Every scenario of every run, in order.
std::vector<ScenarioRef> Scenarios(const ReportData& report);

// A counterexample trial with every invariant it was an example of: one timeline per trial,
// however many invariants it broke.
struct CounterexampleTrial {
  int trial = 0;
  std::string plan;
  std::string replay;
  // (invariant, explanation) in the scenario's invariant order.
  std::vector<std::pair<const InvariantResult*, std::string>> broken;
  std::string hint;  // the first of its examples' fix hints (Counterexample::hint); may be empty
};

// The counterexample trials of a scenario, in the order of their first appearance.
std::vector<CounterexampleTrial> CounterexampleTrials(const ScenarioResult& s);

// The persistence models the run's trials ran under (ScenarioResult::ModelsRun: a model counts
// once a kill applied it) and the job commits of its scenarios, each once, in order of first
// appearance; scenarios outside a git checkout add no commit.
std::vector<std::string> RunModels(const RunResults& results);
std::vector<std::string> RunJobCommits(const RunResults& results);

// The interception backend as the reports show it (docs/reports.md): "seccomp", "preload",
// "mixed (seccomp, preload)" for merged shards; "" when the value claims none (Intercepted:
// "none", a run or scenario that needed no interception, or "" unknown), so nothing is shown.
std::string InterceptionShown(const std::string& interception);

// "1 trial", "2 trials": the count and the noun, with an "s" unless the count is 1.
std::string Plural(size_t n, const std::string& noun);

// "all 40 trials", "its one trial": what "held in ..." says of n trials.
std::string AllTrials(int n);

// "a, b, c"; `none` when empty.
std::string JoinOr(const std::vector<std::string>& items, const std::string& none);

// A report of one run, without histories (no timelines).
ReportData SingleRunReport(const RunResults& results);

}  // namespace killpoint
