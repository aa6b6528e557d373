// How the runner records a path the shim reported changed outside the sandbox (protocol v1.5,
// history/outside_write.h): what kind of place it is, and how the reports name it. Pure.
#pragma once

#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "history/outside_write.h"

namespace killpoint {

struct OutsidePlaces {
  // The trial's sandbox folder (the parent of KILLPOINT_WORKDIR), as given and as its realpath.
  std::vector<std::filesystem::path> sandbox_roots;
  // Temporary folders: /tmp, /var/tmp, /dev/shm, $TMPDIR and the job's TMPDIR.
  std::vector<std::filesystem::path> temp_folders;
};

// The temporary folders a job may write in: /tmp, /var/tmp, /dev/shm, then $TMPDIR and
// `job_tmpdir` when set (each once, lexically normalized).
std::vector<std::filesystem::path> TempFolders(const std::string& job_tmpdir);

// True when `path` is a bytecode cache (a component "__pycache__", or a name ending in
// ".pyc"): Python writes one beside a script it imports the first time after a change. It is
// the job's code, not its state, and whether it is written depends on the run before, so it
// is not recorded.
bool IsBytecodeCache(const std::string& path);

// The record of `path` (absolute) changed by `ops`: a path in a sandbox root is named from
// $KILLPOINT_WORKDIR ("$KILLPOINT_WORKDIR/../x", kind "trial"), one in a temporary folder is
// "temp", else "elsewhere". Nothing for a bytecode cache.
std::optional<OutsideWrite> ClassifyOutside(const std::string& path,
                                            const std::set<std::string>& ops,
                                            const OutsidePlaces& places);

}  // namespace killpoint
