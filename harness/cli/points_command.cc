#include "cli/points_command.h"

#include <algorithm>
#include <iostream>
#include <memory>

#include "cli/exit_codes.h"
#include "cli/paths.h"
#include "cli/sandbox_options.h"
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
  std::string intercept;  // --intercept
  bool json = false;
};

std::string UnseenNote(const std::string& at) {
  return "written without a seen write (stdio, a raw syscall): noticed at " + at;
}

// The files whose content changed with no write call the shim could see.
void PrintUnseenFiles(const std::vector<CrashPoint>& points,
                      const std::vector<std::string>& unseen) {
  std::vector<std::string> files;
  for (size_t i = 0; i < points.size(); ++i) {
    std::string file(SyscallPath(points[i].name));
    if (!unseen[i].empty() && std::find(files.begin(), files.end(), file) == files.end())
      files.push_back(file);
  }
  if (files.empty()) return;
  std::cout << "Changed without a seen write (killpoint noticed it when the file was closed, "
               "synced or renamed;\n"
               "each is a write point, killed only after it, docs/syscall-shim.md):";
  for (const std::string& f : files) std::cout << " " << f;
  std::cout << "\n";
}

int Execute(const PointsArgs& a) {
  auto loaded = LoadScenario(a.scenario);
  if (!loaded) return Report(loaded.error());
  const Scenario& s = loaded.value();
  std::string date = a.date.empty() ? s.dates.front() : a.date;
  TrialOptions options{a.bindir.empty() ? DefaultBindir() : fs::path(a.bindir),
                       fs::temp_directory_path(), false};
  auto intercept = InterceptionOf(a.intercept);
  if (!intercept) return Report(intercept.error());
  options.intercept = intercept.value();
  std::vector<std::string> unseen;
  auto points = DiscoverPoints(s, date, options, &unseen);
  if (!points) return Report(points.error());
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < points.value().size(); ++i) {
    const CrashPoint& p = points.value()[i];
    nlohmann::json moments = nlohmann::json::array();
    for (Moment m : KillMoments(p.name, unseen[i])) moments.push_back(m);
    out.push_back({{"point", p.name},
                   {"occurrence", p.occurrence},
                   {"moments", moments},
                   {"kind", PointKind(p.name)}});
    if (!unseen[i].empty()) out.back()["unseen"] = unseen[i];
  }
  if (a.json) {
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  std::cout << s.name << ", " << date << ", one attempt without faults: " << out.size()
            << " crash points\n";
  for (size_t i = 0; i < out.size(); ++i) {
    const CrashPoint& p = points.value()[i];
    std::string moments;
    for (const auto& m : out[i]["moments"])
      moments += (moments.empty() ? "" : "/") + m.get<std::string>();
    std::cout << "  " << (i + 1) << "\t" << p.name
              << (p.occurrence > 1 ? "#" + std::to_string(p.occurrence) : "") << "\t" << moments
              << (unseen[i].empty() ? "" : "\t" + UnseenNote(unseen[i])) << "\n";
  }
  PrintUnseenFiles(points.value(), unseen);
  return kExitOk;
}

}  // namespace

void AddPointsCommand(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<PointsArgs>();
  CLI::App* cmd = app.add_subcommand("points", "List every crash point a job passes, in order");
  cmd->add_option("scenario", args->scenario, "Scenario file")->required();
  cmd->add_option("--date", args->date, "Business date to run (default: the scenario's first)");
  cmd->add_option("--bindir", args->bindir, "Folder of the reference jobs and the shim");
  AddInterceptOption(cmd, &args->intercept);
  cmd->add_flag("--json", args->json, "Print the points as JSON");
  cmd->callback([args, &exit_code] { exit_code = Execute(*args); });
}

}  // namespace killpoint
