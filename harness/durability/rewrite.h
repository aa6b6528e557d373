// Rewriting the sandbox to the tree a persistence model says survived, and telling the history
// what changed, one line a file ("publish-state.json: rename never made durable, gone").
#pragma once

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "durability/tree.h"
#include "util/result.h"

namespace killpoint::durability {

// A tree by path: what the sandbox holds, file by file.
struct Flat {
  std::map<std::string, std::string> files;  // relpath -> content
  std::map<std::string, FileId> ids;         // relpath -> file
  std::set<std::string> dirs;                // relpaths of directories
};

Flat Flatten(const Tree& tree);
// Empties `work` and writes `target` into it.
Status Rewrite(const std::filesystem::path& work, const Flat& target);

// How a model words what a crash undid (model.h: each model may have its own).
struct Wording {
  std::string gone;  // after "<path>": a name that did not survive
  std::string back;  // after "(its removal or replacement was never ": a name back again
  // Why `path` has other content after the crash than before.
  std::string (*why_changed)(const Flat& before, const Flat& after, const std::string& path);
};
// POSIX's wording: names made durable by a directory's fsync, contents by a file's.
const Wording& PosixWording();

std::vector<std::string> Describe(const Flat& before, const Flat& after, const Wording& wording);

}  // namespace killpoint::durability
