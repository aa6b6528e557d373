#include "run/discovery.h"

#include <algorithm>

#include "history/event_registry.h"

namespace killpoint {

namespace {

// One fault-free run of `dates` in turn; element d: what the first attempt of dates[d] passed.
Result<std::vector<DatePoints>> Discover(Scenario s, const std::vector<std::string>& dates,
                                         const TrialOptions& options) {
  s.syscall_points = true;
  Plan plan{s.name, 0, 0, {}};
  for (const std::string& date : dates) plan.runs.push_back({date, 1, {}});
  TrialOptions o = options;
  o.keep_sandbox = false;
  o.every_point_waits = true;  // each point recorded in order, named and syscall alike
  auto trial = RunTrial(s, plan, o);
  if (!trial) return trial.error();
  std::vector<DatePoints> out(dates.size());
  for (const Event& e : trial.value().events) {
    if (e.type != event::Failpoint::kType || e.trigger != 1 || e.attempt != 1) continue;
    auto d = std::find(dates.begin(), dates.end(), e.biz_date);
    if (d == dates.end()) continue;
    DatePoints& at = out[static_cast<size_t>(d - dates.begin())];
    const event::Failpoint f = Read<event::Failpoint>(e);
    at.points.push_back({f.point, static_cast<int>(f.hit)});
    at.unseen.push_back(f.unseen);
  }
  for (DatePoints& at : out) {
    // Reordering moves the unseen marks with their points: only a downstream's answer moves,
    // and it is never an unseen write.
    std::vector<CrashPoint> ordered = AnswersAfterTheirCommits(at.points);
    if (ordered != at.points) {
      std::vector<std::string> unseen;
      for (const CrashPoint& p : ordered) {
        auto i = std::find(at.points.begin(), at.points.end(), p) - at.points.begin();
        unseen.push_back(at.unseen[static_cast<size_t>(i)]);
      }
      at.unseen = std::move(unseen);
      at.points = std::move(ordered);
    }
  }
  return out;
}

}  // namespace

Result<std::vector<CrashPoint>> DiscoverPoints(Scenario s, std::string date,
                                               const TrialOptions& options,
                                               std::vector<std::string>* unseen) {
  if (unseen) unseen->clear();
  if (date.empty()) date = s.dates.front();
  auto found = Discover(std::move(s), {date}, options);
  if (!found) return found.error();
  if (unseen) *unseen = std::move(found.value().front().unseen);
  return std::move(found.value().front().points);
}

std::vector<CrashPoint> KillablePoints(const Scenario& scenario, std::vector<CrashPoint> points) {
  if (scenario.UsesShim()) return points;
  std::erase_if(points, [](const CrashPoint& p) { return IsSyscallPoint(p.name); });
  return points;
}

Result<std::vector<DatePoints>> DiscoverEveryDate(Scenario s, const TrialOptions& options) {
  std::vector<std::string> dates = s.dates;
  return Discover(std::move(s), dates, options);
}

}  // namespace killpoint
