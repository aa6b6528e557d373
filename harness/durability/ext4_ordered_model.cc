#include "durability/ext4_ordered_model.h"

#include <algorithm>

namespace killpoint::durability {
namespace {

constexpr size_t kExt4Block = 4096;  // mke2fs's default block size for any volume over 512 MiB

// What a journal commit keeps of a regular file. `base` is its data on disk (written back
// since the last commit, else as of that commit), of which the first `kept` bytes are still
// allocated (a truncate frees the rest); `floor` is a size a truncate set. The commit records
// the file's size, but with delayed allocation i_disksize only follows what is allocated: an
// append ending inside the last allocated block moves it at once (its bytes are not written
// back: zeros), an append beyond waits for write-back (cut).
std::string OnDisk(const std::string& base, size_t kept, size_t floor, size_t size) {
  kept = std::min(kept, base.size());
  size_t allocated = (kept + kExt4Block - 1) / kExt4Block * kExt4Block;
  std::string out(std::min(size, std::max(allocated, floor)), '\0');
  base.copy(out.data(), std::min(kept, out.size()));
  return out;
}

// Zero bytes of `after` where `before` had data: a size committed without its data.
size_t NewZeros(const std::string& before, const std::string& after) {
  size_t n = 0;
  for (size_t i = 0; i < after.size(); ++i)
    n += after[i] == '\0' && (i >= before.size() || before[i] != '\0');
  return n;
}

std::string Ext4Loss(const std::string& before, const std::string& after) {
  if (after.empty())
    return "committed before its data was written back: the zero-length file of delayed allocation";
  std::string why = "data not written back before the last journal commit lost";
  if (size_t zeros = NewZeros(before, after)) {
    why += "; " + std::to_string(zeros) +
           " bytes inside the committed size read as zeros (the journal recorded the size, set "
           "by a truncate or by an append inside the last block, before the data was written "
           "back)";
  }
  return why;
}

std::string Ext4WhyChanged(const Flat& before, const Flat& after, const std::string& path) {
  if (before.ids.at(path) != after.ids.at(path)) {
    return "the rename or re-creation that replaced it was never committed to the journal: the "
           "previous file is back";
  }
  return Ext4Loss(before.files.at(path), after.files.at(path));
}

}  // namespace

const Wording& Ext4OrderedModel::wording() const {
  static const Wording kExt4{
      ": its name was never committed to the journal (no fsync since it was created or renamed), "
      "gone",
      "committed to the journal)", Ext4WhyChanged};
  return kExt4;
}

Status Ext4OrderedModel::Begin(const Sandbox& sandbox, const Tree& start) {
  ext4_ = start;
  flushed_.clear();
  truncated_.clear();
  resized_.clear();
  touched_.clear();
  flush_at_close_.clear();
  pending_.clear();
  Namespace ns;
  if (Status s = sandbox.Survey(ns); !s) return s;
  committed_ = std::move(ns.files);
  return Ok();
}

void Ext4OrderedModel::OnOperation(const Sandbox& sandbox, const Operation& op) {
  ResolvePending(sandbox);
  if (op.op == "rename") return OnRename(sandbox, op);
  // A directory, a file gone or not yet created: nothing to do, the next commit sees the names.
  if (!op.exists || !S_ISREG(op.st.st_mode)) return;
  FileId id = sandbox.Id(op.st.st_ino);
  if (op.op == "write") {
    touched_.insert(id);
  } else if (op.op == "truncate") {
    pending_.push_back({op.path, id, op.st.st_size, false});
  } else if (op.op == "open") {
    // O_CREAT or O_TRUNC of an existing file: only a truncation matters, and only a file
    // that had bytes shows one (an O_TRUNC of an empty file goes unseen).
    if (op.st.st_size > 0) pending_.push_back({op.path, id, op.st.st_size, true});
  } else if (op.op == "close" && flush_at_close_.count(id)) {
    Flush(sandbox, id, op.path);  // auto_da_alloc: truncated to zero, its new data goes out now
    flush_at_close_.erase(id);
  }
}

void Ext4OrderedModel::OnRename(const Sandbox& sandbox, const Operation& op) {
  if (op.path.empty()) return;
  bool inside = op.path[0] != '/';  // else moved in from outside: a new name, seen at the commit
  if (inside) touched_.insert(sandbox.Id(op.st.st_ino));  // a rename changes the inode's ctime
  if (!op.dst_exists || !S_ISREG(op.dst_st.st_mode) || (inside && op.dst_st.st_ino == op.st.st_ino))
    return;
  // auto_da_alloc: replacing an existing file writes the new one back first.
  if (inside && S_ISREG(op.st.st_mode)) Flush(sandbox, sandbox.Id(op.st.st_ino), op.path);
}

void Ext4OrderedModel::ResolvePending(const Sandbox& sandbox) {
  for (const auto& p : pending_) {
    struct stat st;
    if (!sandbox.StatPath(p.path, st) || sandbox.Id(st.st_ino) != p.id) continue;
    if (!p.open)
      Truncated(p.id, st.st_size);
    else if (st.st_size < p.size_before)
      Truncated(p.id, 0);  // O_TRUNC
  }
  pending_.clear();
}

void Ext4OrderedModel::Truncated(FileId id, off_t size) {
  auto [it, fresh] = truncated_.try_emplace(id, Truncation{size, size});
  if (!fresh) {
    it->second.min = std::min(it->second.min, size);
    it->second.last = size;
  }
  resized_.insert(id);
  touched_.insert(id);
  if (size == 0) flush_at_close_.insert(id);  // ext4_truncate sets EXT4_STATE_DA_ALLOC_CLOSE
}

void Ext4OrderedModel::Flush(const Sandbox& sandbox, FileId id, const std::string& relpath) {
  flushed_[id] = Slurp(sandbox.work() / relpath);
  truncated_.erase(id);
}

void Ext4OrderedModel::OnSync(const Sandbox& sandbox, const Sync& sync) {
  ResolvePending(sandbox);
  if (sync.kind == Sync::Kind::kDir)
    Commit(sandbox);  // ext4 always commits the journal for a directory (ext4_force_commit)
  else if (sync.kind == Sync::Kind::kFile)
    SyncFile(sandbox, sync);
}

// ext4_sync_file: the file's data is written back and waited for, then the journal commits
// the transaction that last changed the inode (i_sync_tid), or for fdatasync the one that
// last changed its size or allocation (i_datasync_tid), if it has not committed yet. One
// running transaction holds every metadata change of the file system, so that commit makes
// all of them durable, in order. An inode with nothing new since the last commit needs none.
void Ext4OrderedModel::SyncFile(const Sandbox& sandbox, const Sync& sync) {
  const FileId& id = sync.id;
  auto stamp = committed_.find(id);
  auto durable = ext4_.files.find(id);
  bool allocation = stamp == committed_.end() || durable == ext4_.files.end() ||
                    durable->second.size() != sync.content.size() || resized_.count(id);
  bool changed = allocation || touched_.count(id) ||
                 !(stamp->second == Stamp{sync.st.st_size, sync.st.st_mtim, sync.st.st_ctim});
  flushed_[id] = sync.content;
  truncated_.erase(id);
  if (allocation || (!sync.datasync && changed)) {
    Commit(sandbox);
  } else {
    ext4_.files[id] = sync.content;  // overwritten in place and waited for: durable, no commit
    flushed_.erase(id);
  }
}

// A journal commit: the names as they are now; each file's size as committed, with the data
// written back before it (data=ordered) or still on disk from before.
void Ext4OrderedModel::Commit(const Sandbox& sandbox) {
  Namespace ns;
  if (!sandbox.Survey(ns)) return;  // the sandbox cannot be listed: keep the last commit
  static const std::string kNothing;
  std::map<FileId, std::string> files;
  for (const auto& [id, stamp] : ns.files) {
    auto f = flushed_.find(id);
    auto d = ext4_.files.find(id);
    const std::string& base = f != flushed_.end()      ? f->second
                              : d != ext4_.files.end() ? d->second
                                                       : kNothing;
    auto t = truncated_.find(id);
    size_t kept = t == truncated_.end() ? base.size() : static_cast<size_t>(t->second.min);
    size_t floor = t == truncated_.end() ? 0 : static_cast<size_t>(t->second.last);
    files[id] = OnDisk(base, kept, floor, static_cast<size_t>(stamp.size));
  }
  ext4_.dirs = std::move(ns.dirs);
  ext4_.files = std::move(files);
  committed_ = std::move(ns.files);
  flushed_.clear();
  truncated_.clear();
  resized_.clear();
  touched_.clear();
}

Tree Ext4OrderedModel::Survivors(const Sandbox& sandbox, const Tree&, uint64_t) {
  ResolvePending(sandbox);
  return ext4_;
}

}  // namespace killpoint::durability
