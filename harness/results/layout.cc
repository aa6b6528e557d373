#include "results/layout.h"

namespace killpoint {

namespace fs = std::filesystem;

fs::path ResultsFile(const fs::path& out) { return out / "results.json"; }
fs::path RunManifestFile(const fs::path& out) { return out / "run.json"; }
fs::path LockFile(const fs::path& out) { return out / ".killpoint.lock"; }
fs::path DiffFile(const fs::path& out) { return out / "diff.json"; }
fs::path ScenarioDir(const fs::path& out, const std::string& scenario_name) {
  return out / Slug(scenario_name);
}

fs::path TrialsJournal(const fs::path& scenario_dir) { return scenario_dir / "trials.jsonl"; }
fs::path HistoryJournal(const fs::path& scenario_dir) { return scenario_dir / "history.jsonl"; }
fs::path CounterexampleDir(const fs::path& scenario_dir) {
  return scenario_dir / "counterexamples";
}

fs::path TrialCounterexampleFile(const fs::path& scenario_dir, int trial,
                                 const std::string& invariant) {
  return CounterexampleDir(scenario_dir) /
         ("trial-" + std::to_string(trial) + "-" + invariant + ".json");
}

fs::path ExploreCounterexampleFile(const fs::path& scenario_dir, const std::string& invariant) {
  return CounterexampleDir(scenario_dir) / ("explore-" + invariant + ".json");
}

int TrialOfCounterexample(const std::string& name) {
  if (name.rfind("trial-", 0) != 0) return -1;
  size_t end = name.find('-', 6);
  if (end == std::string::npos || end == 6) return -1;
  int trial = 0;
  for (size_t i = 6; i < end; ++i) {
    if (name[i] < '0' || name[i] > '9' || trial > 100'000'000) return -1;
    trial = trial * 10 + (name[i] - '0');
  }
  return trial;
}

ReportFiles DefaultReportFiles(const fs::path& out) {
  return {out / "report.html", out / "junit.xml", out / "summary.md"};
}

}  // namespace killpoint
