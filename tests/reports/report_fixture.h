// Results and histories for the renderer tests: one scenario whose every string that could
// come from a job tries to inject markup, and whose counterexample has a full history.
#pragma once

#include <string>
#include <vector>

#include "history/event.h"
#include "reports/report_model.h"

namespace killpoint::testing {

inline constexpr const char* kEvil =
    "<script>document.title='PWNED'</script><img src=x onerror=alert(2)>";

inline Event Ev(int64_t seq, int64_t t, std::string type, std::string date, int trigger,
                int attempt, nlohmann::json data = nlohmann::json::object()) {
  return {seq, t, std::move(type), std::move(date), trigger, attempt, std::move(data)};
}

// Attempt 1 is killed after publishing; the retry publishes again: a double delivery.
inline std::vector<Event> DoublePublishHistory() {
  const std::string d = "2026-11-01";
  return {
      Ev(0, 0, "trial_start", "", 0, 0, {{"plan", {{"trial", 3}}}}),
      Ev(1, 0, "spawn", d, 1, 1, {{"pid", 10}}),
      Ev(2, 0, "failpoint", d, 1, 1, {{"point", "before_publish"}, {"hit", 1}}),
      Ev(3, 0, "publish", d, 1, 1,
         {{"key", std::string("k") + kEvil},
          {"biz_date", d},
          {"committed", true},
          {"deduplicated", false},
          {"delivery_id", 1}}),
      Ev(4, 0, "failpoint", d, 1, 1, {{"point", "after_publish"}, {"hit", 1}}),
      Ev(5, 0, "kill", d, 1, 1,
         {{"point", "after_publish"}, {"hit", 1}, {"when", "before"}, {"model", "process"}}),
      Ev(6, 0, "exit", d, 1, 1,
         {{"code", 137}, {"signal", 9}, {"killed_by_harness", true}, {"stderr", kEvil}}),
      Ev(7, 0, "retry_wait", d, 1, 1, {{"delay_ms", 1000}, {"next_attempt", 2}}),
      Ev(8, 1000, "spawn", d, 1, 2, {{"pid", 11}}),
      Ev(9, 1000, "publish", d, 1, 2,
         {{"key", std::string("k") + kEvil},
          {"biz_date", d},
          {"committed", true},
          {"deduplicated", false},
          {"delivery_id", 2}}),
      Ev(10, 1000, "alert", d, 1, 2,
         {{"key", "k2"}, {"biz_date", d}, {"reason", kEvil}, {"alert_id", 1}}),
      Ev(11, 1000, "exit", d, 1, 2, {{"code", 0}, {"killed_by_harness", false}, {"stderr", ""}}),
      Ev(12, 1000, "final_pass", "", 0, 0, {{"biz_dates", nlohmann::json::array()}}),
      Ev(13, 1000, "trial_end", "", 0, 0, {{"elapsed_ms", 12}}),
  };
}

inline ScenarioResult HostileScenario() {
  ScenarioResult s;
  s.name = std::string("evil/") + kEvil;
  s.file = "scenarios/\"><img src=x onerror=alert(3)>.json";
  s.trials = 4;
  s.models = {PersistenceModel::kProcess};
  s.job_commit = "0123456789abcdef0123456789abcdef01234567";
  s.invariants = {
      {"no_loss",
       kMustHold,
       3,
       1,
       {{"process", 1}},
       {{3, 1, "2026-11-01#1 a1 kill@<b>after_publish</b>#1", std::string("lost: ") + kEvil,
         "killpoint run 'x' --seed 1 --trial 3 --keep", "",
         std::string("its folder was never fsync'ed ") + kEvil}}},
      {"no_double_publish",
       kExpectedViolation,
       2,
       2,
       {{"process", 2}},
       {{3, 1, "2026-11-01#1 a1 kill@after_publish#1", "2026-11-01 was published 2 times",
         "replay 3", "", ""},
        {1, 1, "2026-11-01#1 a1 kill@after_publish#1", "published twice", "replay 1", "", ""}}},
      {"state_readable", kExpectedViolation, 4, 0, {}, {}}};
  s.points["after_publish"] = {3, 2, {{"no_double_publish", 2}, {"no_loss", 1}}};
  s.points[std::string("<iframe>") + kEvil] = {1, 0, {}};
  return s;
}

inline ReportData HostileReport() {
  RunReport run;
  run.source = "out/<b>dir</b>";
  run.results.killpoint_version = "0.1.0";
  run.results.seed = 7;
  run.results.started_at = "2026-11-29T10:00:00Z";
  run.results.scenarios.push_back(HostileScenario());
  run.histories.resize(1);
  run.histories[0][3] = DoublePublishHistory();
  run.history_notes = {"out/evil/history.jsonl lacks this trial"};
  ReportData r;
  r.runs.push_back(run);
  return r;
}

}  // namespace killpoint::testing
