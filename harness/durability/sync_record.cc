#include "durability/sync_record.h"

namespace killpoint::durability {

void SyncRecord::Begin(const Tree& start) {
  start_ = start;
  synced_dirs_.clear();
  synced_files_.clear();
}

void SyncRecord::OnSync(const Sync& sync, size_t cuts) {
  if (sync.kind == Sync::Kind::kDir && sync.entries)
    synced_dirs_[sync.path] = {cuts, *sync.entries};
  else if (sync.kind == Sync::Kind::kFile)
    synced_files_[sync.id] = sync.content;
}

// A directory's entries after a crash with the namespace cut at `cut`: as at its last fsync if
// that came after the cut, else as at the cut; a directory that did not exist then is empty.
Entries SyncRecord::EntriesAt(const std::string& dir, size_t cut, const std::vector<Dirs>& cuts,
                              const Tree& now) const {
  auto synced = synced_dirs_.find(dir);
  if (synced != synced_dirs_.end() && synced->second.after >= cut) return synced->second.entries;
  const Dirs& dirs = cut == 0 ? start_.dirs : cut <= cuts.size() ? cuts[cut - 1] : now.dirs;
  auto it = dirs.find(dir);
  return it == dirs.end() ? Entries{} : it->second;
}

void SyncRecord::BuildAt(const std::string& dir, size_t cut, const std::vector<Dirs>& cuts,
                         const Tree& now, Tree& out) const {
  Entries entries = EntriesAt(dir, cut, cuts, now);
  for (const auto& [name, entry] : entries) {
    if (entry.dir) BuildAt(Join(dir, name), cut, cuts, now, out);
  }
  out.dirs[dir] = std::move(entries);
}

Tree SyncRecord::Crashed(size_t cut, const std::vector<Dirs>& cuts, const Tree& now) const {
  Tree t;
  BuildAt(".", cut, cuts, now, t);
  t.files = start_.files;
  for (const auto& [id, content] : synced_files_) t.files[id] = content;
  return t;
}

}  // namespace killpoint::durability
