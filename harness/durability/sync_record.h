// What POSIX promises, recorded: the start, each directory's entries at its last fsync and each
// file's content at its last fsync or fdatasync. Power keeps one; torn keeps one and places
// each directory's sync among its namespace cuts.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "durability/model.h"
#include "durability/tree.h"

namespace killpoint::durability {

class SyncRecord {
 public:
  void Begin(const Tree& start);
  // `cuts`: how many namespace cuts were recorded before this sync (torn; 0 otherwise).
  void OnSync(const Sync& sync, size_t cuts = 0);

  // What survives with the namespace cut at `cut`: 0 the start, 1..cuts.size() a recorded
  // cut, cuts.size() + 1 the kill (`now`); each file's content as last synced, else as at the
  // start; a file absent from both was created since and never synced: empty.
  Tree Crashed(size_t cut, const std::vector<Dirs>& cuts, const Tree& now) const;

 private:
  // A directory's entries at its last fsync; `after`: how many cuts were recorded before it.
  struct DirSync {
    size_t after = 0;
    Entries entries;
  };
  Entries EntriesAt(const std::string& dir, size_t cut, const std::vector<Dirs>& cuts,
                    const Tree& now) const;
  void BuildAt(const std::string& dir, size_t cut, const std::vector<Dirs>& cuts, const Tree& now,
               Tree& out) const;

  Tree start_;
  std::map<std::string, DirSync> synced_dirs_;  // since Begin
  std::map<FileId, std::string> synced_files_;  // since Begin
};

}  // namespace killpoint::durability
