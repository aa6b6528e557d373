#include "replay/replay.h"

#include "results/checkers.h"
#include "scenario/scenario_parser.h"
#include "util/atomic_file.h"

namespace killpoint {

Result<Scenario> RecordedScenario(const CounterexampleFile& c, std::string* warning) {
  auto scenario = ParseScenario(c.scenario_text, c.scenario_file);
  if (!scenario) {
    return Error::BadInput("the scenario recorded in the counterexample does not parse: " +
                           scenario.error().message);
  }
  if (scenario.value().name != c.scenario_name || c.plan.scenario != c.scenario_name) {
    return Error::BadInput("the counterexample's scenario is '" + scenario.value().name +
                           "', its plan's '" + c.plan.scenario + "': the file was edited by hand");
  }
  auto current = ReadFile(c.scenario_file);
  if (warning && current && current.value() != c.scenario_text) {
    *warning =
        c.scenario_file +
        " has changed since this counterexample was recorded: replaying the recorded version";
  }
  return scenario;
}

Result<ReplayOutcome> Replay(const CounterexampleFile& c, const TrialOptions& options) {
  ReplayOutcome out;
  auto scenario = RecordedScenario(c, &out.warning);
  if (!scenario) return scenario.error();
  out.scenario = std::move(scenario.value());
  TrialOptions with_checks = options;
  with_checks.crash_checks = CheckCrashState;
  auto trial = RunTrial(out.scenario, c.plan, with_checks);
  if (!trial) return trial.error();
  out.events = trial.value().events;
  auto verdicts = CheckTrial(
      {out.scenario, c.plan, out.events, trial.value().sandbox.work(), trial.value().services},
      AllCheckers());
  if (!verdicts) return verdicts.error();
  out.verdicts = std::move(verdicts.value());
  for (const Verdict& v : out.verdicts) {
    if (v.invariant == c.invariant && !v.held) out.violated = true;
  }
  auto now = Fingerprint(out.events), then = Fingerprint(c.events);
  for (size_t i = 0; i < std::max(now.size(), then.size()); ++i) {
    if (i >= now.size() || i >= then.size() || now[i] != then[i]) {
      out.first_difference = i;
      break;
    }
  }
  if (options.keep_sandbox) out.sandbox = trial.value().sandbox.root();
  return out;
}

}  // namespace killpoint
