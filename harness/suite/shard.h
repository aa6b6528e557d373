// Sharding a run across machines: `killpoint run --shard INDEX/COUNT` makes the trials t with
// t % COUNT == INDEX. Plans depend only on (scenario, seed, trial), so every trial of a shard
// is exactly the trial an unsharded run makes, and `killpoint merge` (merge.h) folds the
// shards back into the unsharded run's results.
#pragma once

#include <optional>
#include <string_view>

#include "results/results.h"
#include "util/result.h"

namespace killpoint {

// "2/4" -> {2, 4}. Junk, COUNT < 1 or INDEX outside [0, COUNT) is BadInput with one line.
Result<ShardInfo> ParseShard(std::string_view text);

// Whether `trial` belongs to `shard` (every trial does when there is no shard).
inline bool InShard(int trial, const std::optional<ShardInfo>& shard) {
  return !shard || trial % shard->count == shard->index;
}

// How many of the trials 0..total-1 belong to `shard`.
inline int ShareOf(int total, const std::optional<ShardInfo>& shard) {
  if (!shard) return total;
  return total > shard->index ? (total - shard->index + shard->count - 1) / shard->count : 0;
}

}  // namespace killpoint
