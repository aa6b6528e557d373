// What survives a crash of the machine, not just of the job. The tracker snapshots the
// sandbox when an attempt starts (taken as durable: the time between attempts lets writeback
// finish) and, while the job is blocked at each fsync/fdatasync the shim reports, copies what
// that call makes durable: a file's content, or a directory's entries. After a kill, Apply
// rewrites the sandbox to what the chosen persistence model says survived:
//   process: everything (a kill -9: the page cache survives), nothing to do;
//   power:   only what POSIX promises: fsync'ed contents, and names whose directory was fsync'ed;
//            a new file never fsync'ed but durably named is empty;
//   torn:    as power, but each un-synced change survives or not by a seeded coin, and
//            un-synced file contents come back as a seeded mix of old and new 512-byte
//            sectors with a length between the two.
// Not thread-safe: the runner and the control channel call it under AttemptState's lock.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "util/result.h"

namespace killpoint {

inline constexpr const char* kModelProcess = "process";
inline constexpr const char* kModelPower = "power";
inline constexpr const char* kModelTorn = "torn";

class DurabilityTracker {
 public:
  struct Entry {
    ino_t ino = 0;
    bool dir = false;
    bool operator==(const Entry&) const = default;
  };
  using Entries = std::map<std::string, Entry>;  // name -> entry

  // Snapshots `work` as the durable state at the start of an attempt.
  Status Begin(const std::filesystem::path& work);

  // The job is about to fsync/fdatasync `relpath` (a file or a directory) and will do it.
  void OnSync(const std::string& relpath);

  // Rewrites the sandbox to what survives under `model`; returns one line per change, for
  // the history ("publish-state.json: rename never made durable, gone").
  Result<std::vector<std::string>> Apply(const std::string& model, uint64_t seed);

 private:
  struct Tree {
    std::map<std::string, Entries> dirs;  // relpath of a directory -> its entries
    std::map<ino_t, std::string> files;   // inode -> content
  };
  Status Snapshot(Tree& tree) const;
  Tree Durable() const;
  void BuildDurable(const std::string& dir, Tree& out) const;

  std::filesystem::path work_;
  Tree start_;                                  // at Begin
  std::map<std::string, Entries> synced_dirs_;  // since Begin
  std::map<ino_t, std::string> synced_files_;   // since Begin
};

}  // namespace killpoint
