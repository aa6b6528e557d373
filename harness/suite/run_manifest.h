// OUT/run.json: what a run was asked to do, written when it starts, so that
// `killpoint run ... --out OUT --resume` can refuse to continue it with anything else. A resumed
// run must make the very trials the interrupted one would have made: same scenarios (by name,
// file and content; the files of its job, by digest), seed, trial count, exhaustive mode and limit,
// shard, single trial, job commit, killpoint version and interception backend (--intercept, when a
// scenario is intercepted: InterceptionUsed). Where the sandboxes go, --keep and the report paths
// may differ.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "results/results.h"
#include "scenario/scenario.h"
#include "util/result.h"

namespace killpoint {

struct SuiteOptions;

struct ManifestScenario {
  std::string name;
  std::string file;
  std::string digest;      // FNV-1a 64 of the scenario file's bytes, hex
  std::string job_commit;  // job_commit.h
  // The files the job runs and their digests (JobFileDigests): path -> FNV-1a 64 hex.
  std::map<std::string, std::string> job_files = {};
  bool operator==(const ManifestScenario&) const = default;
};

struct RunManifest {
  std::string killpoint_version;
  std::string started_at;
  uint64_t seed = 0;
  int trials = 0;  // --trials; 0: each scenario's own
  bool exhaustive = false;
  int limit = 0;  // --limit of an exhaustive run
  std::optional<ShardInfo> shard;
  std::optional<int> trial;  // --trial
  std::vector<ManifestScenario> scenarios;
  // --intercept as the run used it (suite.h's InterceptionUsed): "seccomp" or "preload", or
  // "none" when no scenario is intercepted (then any --intercept resumes it); "" in a run.json
  // of before the field, which is not checked.
  std::string intercept;
};

// The manifest of running `scenarios` with `options` now.
Result<RunManifest> MakeManifest(const std::vector<Scenario>& scenarios,
                                 const SuiteOptions& options, const std::string& started_at);

Status WriteManifest(const std::filesystem::path& out, const RunManifest& m);

// OUT/run.json; BadInput naming the file when it is missing or damaged.
Result<RunManifest> ReadManifest(const std::filesystem::path& out);

// Ok when `now` makes the same trials as `then`; else BadInput naming `file` and the first
// difference ("seed: 5 in the interrupted run, 6 now").
Status SameTrials(const RunManifest& then, const RunManifest& now, const std::string& file);

}  // namespace killpoint
