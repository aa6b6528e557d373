// Asking what is at a path of a job's sandbox without throwing. A hostile or broken job leaves
// anything behind: a symlink loop where a check reads its database, a folder with mode 000, a
// FIFO where its state file was (issue 34 found std::filesystem::exists throwing out of three
// checks, and the harness aborting).
#pragma once

#include <filesystem>

#include "util/result.h"

namespace killpoint {

// Whether anything is at `path`: true for any entry (a file, a folder, a FIFO, a dangling or
// looping symlink), false when nothing is; an error, naming the path, when the question cannot
// be answered (a folder on the way that cannot be searched).
Result<bool> Present(const std::filesystem::path& path);

}  // namespace killpoint
