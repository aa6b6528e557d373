// Stable names for temporary files (docs/syscall-shim.md, "Temporary files"). mkstemp,
// Python's tempfile, coreutils' mktemp and Go's os.CreateTemp give each run a new random
// name, so "open:tmpk3x9q1ab" never recurs and no scenario can list it. A file the shim saw
// created exclusively (O_CREAT|O_EXCL, protocol v1.3) is named instead by its creation order
// within the attempt, keeping its directory: "sub/<tmp1>", "<tmp2>". Every later point on
// that path uses the alias ("write:<tmp1>", "rename:<tmp1>:state.json") until the file is
// renamed away or unlinked. One table per attempt, fed by all the attempt's processes, since
// a shell's mktemp, its writes and its mv are three processes. Not thread-safe: the attempt's
// lock guards it.
#pragma once

#include <map>
#include <set>
#include <string>

namespace killpoint {

class TempNames {
 public:
  // The name `point` goes by (itself when no alias is involved), and what it does to the
  // table: an exclusive create starts an alias, a rename or unlink of its path ends it.
  // `one_way`: a SEEN line (protocol v1.2), which a process may send long after the point
  // (bash queues its redirection's open until it exits, after mv renamed the file away); it
  // falls back on the aliases that ended, where a HIT, always on time, never does, but for an
  // unlink: a cleanup of the old path after the rename (Go's deferred os.Remove) keeps it too.
  std::string Rename(const std::string& point, bool excl, bool one_way = false);
  // Paths (relative to the sandbox) the scenario names as the job's own (check.state_file,
  // check.db and SQLite's files beside it): never aliased, whoever creates them. GNU cp
  // creates a missing destination with O_EXCL, so a state file copied into place looked
  // temporary, and the models' rollbacks and the hints lost its name (issue 33).
  void Keep(std::set<std::string> paths) { keep_ = std::move(paths); }
  // A new attempt: its files are numbered from <tmp1> again. The aliases of the attempts
  // before are kept for Known.
  void Clear();
  // The alias a sandbox path had in this attempt or an earlier one of the trial, else the path:
  // what the persistence models report (a rollback's files) under the names every other event
  // uses, so that a replay meets the same history (issue 33).
  std::string Known(const std::string& path) const;

 private:
  std::string Alias(const std::string& path, bool one_way) const;
  void End(const std::string& path);
  std::map<std::string, std::string> alias_;  // real sandbox path -> "dir/<tmpN>"
  std::map<std::string, std::string> ended_;  // renamed away or unlinked: for late SEEN lines
  std::map<std::string, std::string> past_;   // the earlier attempts' aliases, for Known
  std::set<std::string> keep_;                // Keep's paths
  int created_ = 0;
};

}  // namespace killpoint
