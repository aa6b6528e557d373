// Durable file writes for the harness's own results: the harness practises what it checks.
#pragma once

#include <filesystem>
#include <string_view>

#include "util/result.h"

namespace killpoint {

// Replaces `path` with `content` so that a reader (or a crash) sees either the old file or the
// new one, never a mix: temp file in the same directory, write, fsync, rename, fsync directory.
Status WriteFileAtomically(const std::filesystem::path& path, std::string_view content);

// Appends `content` to `path` with one write() and fdatasync(); when the append creates the
// file, its directory is fsynced too. A crash may leave a torn last record; readers of
// append-only journals must drop an incomplete final line.
Status AppendDurably(const std::filesystem::path& path, std::string_view content);

// fsync of a directory: what makes the names created, renamed or removed in it durable.
Status SyncDirectory(const std::filesystem::path& dir);

// Reads a whole file; an error names the file.
Result<std::string> ReadFile(const std::filesystem::path& path);

}  // namespace killpoint
