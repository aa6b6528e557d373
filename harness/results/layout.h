// The output folder of a run (`--out`): every path in it is spelled here and nowhere else.
//
//   OUT/results.json                     the results (results.h), written last, atomically
//   OUT/run.json                         the run's options, for --resume (suite/run_manifest.h)
//   OUT/.killpoint.lock                  held while a command writes OUT (output_lock.h)
//   OUT/<slug>/trials.jsonl              per scenario: a line per finished trial (journal.h)
//   OUT/<slug>/history.jsonl             per scenario: each finished trial's events
//   OUT/<slug>/counterexamples/          per scenario: trial-N-INVARIANT.json,
//   explore-INVARIANT.json OUT/report.html, junit.xml, summary.md   the reports (reports/),
//   rendered from results.json
#pragma once

#include <filesystem>
#include <string>

#include "util/slug.h"  // Slug: a scenario's name as a folder name

namespace killpoint {

std::filesystem::path ResultsFile(const std::filesystem::path& out);
std::filesystem::path RunManifestFile(const std::filesystem::path& out);
std::filesystem::path LockFile(const std::filesystem::path& out);
// OUT/diff.json: the run against its baseline (diff.h), written by `run --baseline`.
std::filesystem::path DiffFile(const std::filesystem::path& out);
// OUT/<slug>: the folder of one scenario's journals and counterexamples (Slug).
std::filesystem::path ScenarioDir(const std::filesystem::path& out,
                                  const std::string& scenario_name);

// In a scenario's folder.
std::filesystem::path TrialsJournal(const std::filesystem::path& scenario_dir);
std::filesystem::path HistoryJournal(const std::filesystem::path& scenario_dir);
std::filesystem::path CounterexampleDir(const std::filesystem::path& scenario_dir);

// Counterexample files: "trial-12-no_loss.json" of `run`, "explore-no_loss.json" of `explore`.
std::filesystem::path TrialCounterexampleFile(const std::filesystem::path& scenario_dir, int trial,
                                              const std::string& invariant);
std::filesystem::path ExploreCounterexampleFile(const std::filesystem::path& scenario_dir,
                                                const std::string& invariant);
// The trial of a counterexample file's name ("trial-12-no_loss.json" -> 12); -1 for any
// other name (explore's, or a file that is not ours).
int TrialOfCounterexample(const std::string& file_name);

// The reports `run` and `merge` write beside results.json unless told otherwise.
struct ReportFiles {
  std::filesystem::path html, junit, markdown;
};
ReportFiles DefaultReportFiles(const std::filesystem::path& out);

}  // namespace killpoint
