#include "cli/points_command.h"

#include <iostream>
#include <memory>

#include "cli/exit_codes.h"
#include "cli/paths.h"
#include "plan/crash_point.h"
#include "run/discovery.h"
#include "scenario/scenario_parser.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;

struct PointsArgs {
  std::string scenario;
  std::string date;
  std::string bindir;
  bool json = false;
};

int Execute(const PointsArgs& a) {
  auto loaded = LoadScenario(a.scenario);
  if (!loaded) return Report(loaded.error());
  const Scenario& s = loaded.value();
  std::string date = a.date.empty() ? s.dates.front() : a.date;
  TrialOptions options{a.bindir.empty() ? DefaultBindir() : fs::path(a.bindir), fs::temp_directory_path(), false};
  auto points = DiscoverPoints(s, date, options);
  if (!points) return Report(points.error());
  nlohmann::json out = nlohmann::json::array();
  for (const CrashPoint& p : points.value()) {
    nlohmann::json moments = nlohmann::json::array();
    for (const char* m : KillMoments(p.name)) moments.push_back(m);
    out.push_back({{"point", p.name}, {"occurrence", p.occurrence}, {"moments", moments},
                   {"kind", PointKind(p.name)}});
  }
  if (a.json) {
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  std::cout << s.name << ", " << date << ", one attempt without faults: " << out.size() << " crash points\n";
  for (size_t i = 0; i < out.size(); ++i) {
    const CrashPoint& p = points.value()[i];
    std::string moments;
    for (const auto& m : out[i]["moments"]) moments += (moments.empty() ? "" : "/") + m.get<std::string>();
    std::cout << "  " << (i + 1) << "\t" << p.name << (p.occurrence > 1 ? "#" + std::to_string(p.occurrence) : "")
              << "\t" << moments << "\n";
  }
  return kExitOk;
}

}  // namespace

void AddPointsCommand(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<PointsArgs>();
  CLI::App* cmd = app.add_subcommand("points", "List every crash point a job passes, in order");
  cmd->add_option("scenario", args->scenario, "Scenario file")->required();
  cmd->add_option("--date", args->date, "Business date to run (default: the scenario's first)");
  cmd->add_option("--bindir", args->bindir, "Folder of the reference jobs and the shim");
  cmd->add_flag("--json", args->json, "Print the points as JSON");
  cmd->callback([args, &exit_code] { exit_code = Execute(*args); });
}

}  // namespace killpoint
