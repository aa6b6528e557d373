#include "explore/explorer.h"

#include <rapidcheck.h>

#include <algorithm>

#include "counterexample/final_state.h"
#include "explore/schedule_gen.h"
#include "history/start_failure.h"
#include "plan/point_pattern.h"
#include "proc/interrupt.h"
#include "results/checkers.h"
#include "run/discovery.h"
#include "service/server_pool.h"

namespace killpoint {
namespace {

using Clock = std::chrono::steady_clock;

// What the property does with each schedule RapidCheck hands it. Once a violation is found the
// search is over and every later call is a shrink candidate, run for real until the shrink
// budget is spent; after that every candidate is declared to pass, so RapidCheck keeps the
// smallest failure it has.
class Search {
 public:
  Search(const Scenario& s, const ExploreOptions& o)
      : scenario_(s), options_(o), trial_options_(o.trial), started_(Clock::now()) {
    trial_options_.crash_checks = CheckCrashState;
    // Every schedule borrows the same servers: a broker's boot takes seconds, and a search
    // runs hundreds of schedules (docs/services.md, "Isolation").
    if (trial_options_.server_pool == nullptr) trial_options_.server_pool = &pool_;
    targets_ = o.invariants;
    if (targets_.empty()) {
      targets_ = s.must_hold;
      targets_.insert(targets_.end(), s.expected_violations.begin(), s.expected_violations.end());
    }
  }

  void Property(const Plan& plan) {
    if (error_ || outcome_.start_failures.trials >= kSchedulesToJudgeNeverRan) return;
    bool shrinking = outcome_.first.has_value();
    if (Interrupted(shrinking)) return;
    if (shrinking) {
      if (outcome_.shrink_trials >= options_.shrink_trials) return;
    } else if (outcome_.trials >= options_.trials || OutOfTime()) {
      RC_DISCARD("budget spent");
    }
    auto trial = RunTrial(scenario_, plan, trial_options_);
    if (!trial && trial_options_.stop.stop_requested()) {  // the schedule in flight is abandoned
      (void)Interrupted(shrinking);
      return;
    }
    if (!trial) {
      error_ = trial.error();
      return;
    }
    if (!shrinking && NeverGotGoing(plan, trial.value().events)) return;
    int n = shrinking ? ++outcome_.shrink_trials : ++outcome_.trials;
    auto checked = CheckTrial({scenario_, plan, trial.value().events, trial.value().sandbox.work(),
                               trial.value().services},
                              AllCheckers());
    if (!checked) {
      error_ = checked.error();
      return;
    }
    std::vector<Verdict> verdicts = std::move(checked.value());
    const Verdict* violated = nullptr;
    for (const std::string& name : targets_) {
      for (const Verdict& v : verdicts) {
        if (!violated && v.invariant == name && !v.held) violated = &v;
      }
    }
    if (options_.on_trial) options_.on_trial(n, shrinking, plan.Summary(), violated != nullptr);
    if (!violated) return;
    // A shrink candidate counts only if it breaks the invariant first found.
    if (shrinking && violated->invariant != outcome_.first->invariant) {
      const Verdict* same = nullptr;
      for (const Verdict& v : verdicts) {
        if (v.invariant == outcome_.first->invariant && !v.held) same = &v;
      }
      if (!same) return;
      violated = same;
    }
    CounterexampleFile c;
    c.killpoint_version = KILLPOINT_VERSION;
    c.scenario_file = std::filesystem::absolute(scenario_.file).string();
    c.scenario_name = scenario_.name;
    c.source = "explore";
    c.plan = plan;
    c.invariant = violated->invariant;
    c.explanation = violated->explanation;
    c.verdicts = verdicts;
    c.events = trial.value().events;
    c.final_state = CaptureFinalState(scenario_, trial.value().sandbox.work(), c.events);
    if (!shrinking) outcome_.first = c;
    outcome_.found = std::move(c);
    RC_FAIL(violated->invariant + " violated");
  }

  const std::optional<Error>& error() const { return error_; }

  // A schedule whose job failed the same way as every one before it, before any crash point:
  // counted, not judged (converges would call the broken command a violation). After
  // kSchedulesToJudgeNeverRan of them the search stops.
  bool NeverGotGoing(const Plan& plan, const std::vector<Event>& events) {
    StartFailureStats& seen = outcome_.start_failures;
    std::optional<StartFailure> failure = StartFailureOf(events);
    if (!failure || seen.trials != outcome_.trials) return false;
    if (seen.trials > 0 && failure->code != seen.first.code) return false;
    int n = ++outcome_.trials;
    seen.Add(n, *failure);
    if (options_.on_trial) options_.on_trial(n, false, plan.Summary(), false);
    if (seen.trials >= kSchedulesToJudgeNeverRan) RC_FAIL("the job never ran");
    return true;
  }

  ExploreOutcome& outcome() {
    outcome_.servers_started = pool_.started();
    return outcome_;
  }

 private:
  // Whether a SIGINT/SIGTERM asked the explorer to stop; then every later call ends at once.
  // While searching, the first such call fails the property (without a counterexample): a
  // discard would not end a search of a million schedules soon, a failure ends it, and the
  // shrink candidates RapidCheck then tries all pass at once, so it stops after one round.
  // While shrinking, candidates pass: RapidCheck keeps the smallest failure it has.
  bool Interrupted(bool shrinking) {
    if (!trial_options_.stop.stop_requested()) return false;
    if (outcome_.interrupted == 0) {
      outcome_.interrupted = trial_options_.stop.signal();
      if (!shrinking) RC_FAIL("interrupted");
    }
    return true;
  }

  bool OutOfTime() const {
    return options_.time_budget && Clock::now() - started_ >= *options_.time_budget;
  }

  const Scenario& scenario_;
  const ExploreOptions& options_;
  ServerPool pool_;             // before trial_options_, which points at it
  TrialOptions trial_options_;  // options_.trial, with the checks of every crash state
  Clock::time_point started_;
  std::vector<std::string> targets_;
  ExploreOutcome outcome_;
  std::optional<Error> error_;
};

// RapidCheck's own listener prints its configuration and, at exit, how to reproduce a failure
// with RC_PARAMS; killpoint prints its own reproduce lines, so this one listens to nothing.
class SilentListener : public rc::detail::TestListener {
 public:
  void onTestCaseFinished(const rc::detail::CaseDescription&) override {}
  void onShrinkTried(const rc::detail::CaseDescription&, bool) override {}
  void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}
};

}  // namespace

Result<ExploreOutcome> Explore(const Scenario& s, const ExploreOptions& o) {
  if (s.dates.empty())
    return Error::BadInput(s.file.string() + ": dates: explore needs at least one");
  // Patterns draw from the points a fault-free run passes, as `run` plans them.
  std::vector<CrashPoint> discovered;
  if (std::any_of(s.failpoints.begin(), s.failpoints.end(), IsPointPattern)) {
    auto points = DiscoverPoints(s, "", o.trial);
    if (!points) return points.error();
    discovered = KillablePoints(s, std::move(points.value()));
  }
  Search search(s, o);
  rc::detail::TestParams params;
  params.seed = o.seed;
  // Without a trial budget the wall-clock budget ends the search.
  params.maxSuccess = o.time_budget && o.trials <= 0 ? 1'000'000 : std::max(o.trials, 1);
  params.maxSize = 100;
  params.maxDiscardRatio = 1;  // once the budget is spent, every call discards: stop soon
  rc::detail::TestMetadata metadata;
  metadata.id = s.name;
  metadata.description = "explore " + s.name;
  SilentListener listener;
  rc::detail::checkProperty(rc::detail::toProperty([&] {
                              search.Property(*GenSchedule(s, o.seed, o.all_faults, discovered));
                            }),
                            metadata, params, listener, {});
  if (search.error()) return *search.error();
  return std::move(search.outcome());
}

}  // namespace killpoint
