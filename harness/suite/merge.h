// Folds the output folders of `killpoint run --shard I/N` (shard.h) back into the one run an
// unsharded `killpoint run` would have made. From each shard it reads
//   SHARD/results.json                 seed, scenarios, which shard it is
//   SHARD/<slug>/trials.jsonl          per trial: plan and verdicts
//   SHARD/<slug>/history.jsonl         every event of every trial
//   SHARD/<slug>/counterexamples/      the counterexample files of its examples
// and writes OUT/results.json (atomically, last), OUT/<slug>/trials.jsonl and history.jsonl
// in trial order, and copies the counterexample files the merged examples name.
//
// Each ScenarioResult is rebuilt by folding the trials in trial order with ScenarioResult::Add,
// so counts, examples, points and per-model counts equal the unsharded run's. Elapsed times:
// a scenario's is the sum of its shards' (the work it took), the run's is the longest shard's
// (the wall-clock time when shards run side by side). started_at is the earliest shard's.
// Interception (the run's and each scenario's): the shards' when they agree, else
// "mixed: seccomp, preload" (each backend once, in shard order; MergedInterception): shards
// run on machines with and without seccomp are merged, and the reports say they were mixed.
//
// Refused (BadInput, nothing written): shards of different seeds, killpoint versions, scenario
// sets or job commits; a shard count that differs; a duplicate or missing shard index; a trial
// outside its shard or in two shards; a trial count that does not match results.json; a
// damaged results.json or journal.
#pragma once

#include <filesystem>
#include <vector>

#include "results/results.h"
#include "util/result.h"

namespace killpoint {

Result<RunResults> MergeShards(const std::vector<std::filesystem::path>& shard_dirs,
                               const std::filesystem::path& out);

}  // namespace killpoint
