// Saving a small file three ways, with a failpoint between every step, so that the harness can
// crash the job anywhere and then show which way survives a crash or a power loss.
#ifndef KILLPOINT_JOBS_PUBLISH_DURABLE_SAVE_H_
#define KILLPOINT_JOBS_PUBLISH_DURABLE_SAVE_H_

#include <optional>
#include <string>

#include "publish/status.h"

namespace killpoint::publish {

enum class SaveMode {
  // Write PATH.tmp, fsync it, rename it over PATH, fsync the directory. Correct.
  kAtomic,
  // The same without the directory fsync: a power loss may undo the rename.
  kAtomicNoDirsync,
  // Truncate PATH and write it in place: a crash mid-write leaves a torn file.
  kInPlace,
};

// "atomic", "atomic-no-dirsync", "in-place".
std::optional<SaveMode> ParseSaveMode(const std::string& text);

// Replaces the content of path with bytes. Failpoints, in order:
//   atomic:            before_write, mid_write, before_fsync, before_rename, after_rename
//   atomic-no-dirsync: the same
//   in-place:          before_write, mid_write, before_fsync
// mid_write comes after the first half of bytes (size / 2) was written.
Status SaveFile(const std::string& path, const std::string& bytes, SaveMode mode);

}  // namespace killpoint::publish

#endif  // KILLPOINT_JOBS_PUBLISH_DURABLE_SAVE_H_
