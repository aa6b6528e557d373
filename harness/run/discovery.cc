#include "run/discovery.h"

namespace killpoint {

Result<std::vector<CrashPoint>> DiscoverPoints(Scenario s, std::string date, const TrialOptions& options) {
  s.syscall_points = true;
  if (date.empty()) date = s.dates.front();
  Plan plan{s.name, 0, 0, {{date, 1, {}}}};
  TrialOptions o = options;
  o.keep_sandbox = false;
  o.every_point_waits = true;  // each point recorded in order, named and syscall alike
  auto trial = RunTrial(s, plan, o);
  if (!trial) return trial.error();
  std::vector<CrashPoint> points;
  for (const Event& e : trial.value().events) {
    if (e.type == event::kFailpoint && e.biz_date == date && e.trigger == 1 && e.attempt == 1) {
      points.push_back({e.data.value("point", ""), e.data.value("hit", 1)});
    }
  }
  return AnswersAfterTheirCommits(std::move(points));
}

}  // namespace killpoint
