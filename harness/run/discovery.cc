#include "run/discovery.h"

#include <algorithm>

namespace killpoint {

Result<std::vector<CrashPoint>> DiscoverPoints(Scenario s, std::string date,
                                               const TrialOptions& options,
                                               std::vector<std::string>* unseen) {
  if (unseen) unseen->clear();
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
      if (unseen) unseen->push_back(e.data.value("unseen", ""));
    }
  }
  return AnswersAfterTheirCommits(std::move(points));
}

void DropImpossibleMoments(std::vector<AttemptFault>& space, const std::vector<CrashPoint>& points,
                           const std::vector<std::string>& unseen) {
  for (size_t i = 0; i < points.size() && i < unseen.size(); ++i) {
    if (unseen[i].empty()) continue;
    std::vector<const char*> possible = KillMoments(points[i].name, unseen[i]);
    std::erase_if(space, [&](const AttemptFault& f) {
      return f.kill_point == points[i].name && f.occurrence == points[i].occurrence &&
             std::find(possible.begin(), possible.end(), f.when) == possible.end();
    });
  }
}

}  // namespace killpoint
