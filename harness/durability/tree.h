// The sandbox as the persistence models see it: directories' entries (which file, by inode
// number and generation, each name points to) and files' contents, read from disk. Shared by
// the tracker (durability.h) and every model unit (model.h).
// Files are known by inode number and a generation, bumped when the tracker sees the inode
// freed (an unlink or a rename over its last name): ext4 hands a freed number to the next new
// file at once, which must not inherit the old file's durable content.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <compare>
#include <cstdint>
#include <ctime>
#include <filesystem>
#include <map>
#include <string>

#include "util/result.h"

namespace killpoint::durability {

struct FileId {
  ino_t ino = 0;
  uint32_t gen = 0;
  auto operator<=>(const FileId&) const = default;
};
struct Entry {
  ino_t ino = 0;
  uint32_t gen = 0;
  bool dir = false;
  FileId id() const { return {ino, gen}; }
  bool operator==(const Entry&) const = default;
};
using Entries = std::map<std::string, Entry>;  // name -> entry
using Dirs = std::map<std::string, Entries>;   // relpath of a directory -> its entries

struct Tree {
  Dirs dirs;
  std::map<FileId, std::string> files;  // file -> content
};

// What ext4 compares to decide whether an fsync must commit the journal.
struct Stamp {
  off_t size = 0;
  timespec mtime{};
  timespec ctime{};
  bool operator==(const Stamp& o) const {
    return size == o.size && mtime.tv_sec == o.mtime.tv_sec && mtime.tv_nsec == o.mtime.tv_nsec &&
           ctime.tv_sec == o.ctime.tv_sec && ctime.tv_nsec == o.ctime.tv_nsec;
  }
};
// The names without the contents: cheaper than a Tree, for states read at many points.
struct Namespace {
  Dirs dirs;
  std::map<FileId, Stamp> files;  // regular files only
};

// "dir/name", or "name" in the sandbox's root ".".
std::string Join(const std::string& dir, const std::string& name);
// A whole file, read in one piece into a buffer of its size (a copy at every fsync must be cheap).
std::string Slurp(const std::filesystem::path& p);

// The sandbox of one attempt and the generation of each inode number in it.
class Sandbox {
 public:
  // A new attempt in `work`: every generation back to 0.
  void Reset(const std::filesystem::path& work);
  const std::filesystem::path& work() const { return work_; }
  std::filesystem::path PathOf(const std::string& relpath) const {
    return relpath == "." ? work_ : work_ / relpath;
  }

  FileId Id(ino_t ino) const;
  // The inode's last name goes: from now on its number names another file.
  void Freed(ino_t ino) { ++gens_[ino]; }

  // lstat of a path inside the sandbox; false for one outside it (absolute) or gone.
  bool StatPath(const std::string& relpath, struct stat& st) const;
  // A directory's regular files and folders; `stats`, if given, gets each regular file's stat.
  Result<Entries> List(const std::filesystem::path& dir,
                       std::map<FileId, struct stat>* stats = nullptr) const;
  // The whole sandbox, names and contents.
  Status Snapshot(Tree& tree) const;
  // The whole sandbox, names and stamps.
  Status Survey(Namespace& ns) const;

 private:
  std::filesystem::path work_;
  std::map<ino_t, uint32_t> gens_;  // inode number -> generation, when not 0
};

}  // namespace killpoint::durability
