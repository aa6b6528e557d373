#include "durability/durability.h"

#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include "plan/rng.h"
#include "util/atomic_file.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;
constexpr size_t kSector = 512;
constexpr size_t kExt4Block = 4096;  // mke2fs's default block size for any volume over 512 MiB

std::string Join(const std::string& dir, const std::string& name) {
  return dir == "." ? name : dir + "/" + name;
}

// A whole file, read in one piece into a buffer of its size (a copy at every fsync must be cheap).
std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary | std::ios::ate);
  if (!in) return {};
  std::string out(static_cast<size_t>(std::max<std::streamoff>(0, in.tellg())), '\0');
  in.seekg(0);
  in.read(out.data(), static_cast<std::streamsize>(out.size()));
  out.resize(static_cast<size_t>(std::max<std::streamsize>(0, in.gcount())));
  return out;
}

using FileId = DurabilityTracker::FileId;

// `gens`: the generation of each inode number (0 if absent). `stats`, if given, gets the
// stat of each regular file.
Result<DurabilityTracker::Entries> List(const fs::path& dir, const std::map<ino_t, uint32_t>& gens,
                                        std::map<FileId, struct stat>* stats = nullptr) {
  DurabilityTracker::Entries out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    struct stat st;
    if (::lstat(e.path().c_str(), &st) != 0) continue;  // gone meanwhile
    if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) continue;
    auto gen = gens.find(st.st_ino);
    DurabilityTracker::Entry entry{st.st_ino, gen == gens.end() ? 0 : gen->second,
                                   S_ISDIR(st.st_mode)};
    out[e.path().filename().string()] = entry;
    if (stats && S_ISREG(st.st_mode)) (*stats)[entry.id()] = st;
  }
  if (ec) return Error::Harness("cannot list " + dir.string() + ": " + ec.message());
  return out;
}

// A seeded mix of two versions of a file, sector by sector, with a length between them.
std::string Tear(const std::string& old_bytes, const std::string& new_bytes, PlanRng& rng) {
  size_t lo = std::min(old_bytes.size(), new_bytes.size());
  size_t hi = std::max(old_bytes.size(), new_bytes.size());
  size_t size = lo + rng.Below(hi - lo + 1);
  std::string out(size, '\0');
  for (size_t at = 0; at < size; at += kSector) {
    const std::string& from = rng.Chance(0.5) ? new_bytes : old_bytes;
    for (size_t i = at; i < std::min(size, at + kSector); ++i)
      out[i] = i < from.size() ? from[i] : '\0';
  }
  return out;
}

// ext4-ordered: what a journal commit keeps of a regular file. `base` is its data on disk
// (written back since the last commit, else as of that commit), of which the first `kept`
// bytes are still allocated (a truncate frees the rest); `floor` is a size a truncate set.
// The commit records the file's size, but with delayed allocation i_disksize only follows
// what is allocated: an append ending inside the last allocated block moves it at once
// (its bytes are not written back: zeros), an append beyond waits for write-back (cut).
std::string OnDisk(const std::string& base, size_t kept, size_t floor, size_t size) {
  kept = std::min(kept, base.size());
  size_t allocated = (kept + kExt4Block - 1) / kExt4Block * kExt4Block;
  std::string out(std::min(size, std::max(allocated, floor)), '\0');
  base.copy(out.data(), std::min(kept, out.size()));
  return out;
}

struct Flat {
  std::map<std::string, std::string> files;  // relpath -> content
  std::map<std::string, FileId> ids;         // relpath -> file
  std::set<std::string> dirs;                // relpaths of directories
};

void Flatten(const std::map<std::string, DurabilityTracker::Entries>& dirs,
             const std::map<FileId, std::string>& contents, const std::string& dir, Flat& out) {
  auto it = dirs.find(dir);
  if (it == dirs.end()) return;
  for (const auto& [name, entry] : it->second) {
    std::string path = Join(dir, name);
    if (entry.dir) {
      out.dirs.insert(path);
      Flatten(dirs, contents, path, out);
    } else {
      auto c = contents.find(entry.id());
      out.files[path] = c == contents.end() ? "" : c->second;
      out.ids[path] = entry.id();
    }
  }
}

Status Rewrite(const fs::path& work, const Flat& target) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(work, ec)) fs::remove_all(e.path(), ec);
  if (ec) return Error::Harness("cannot roll back " + work.string() + ": " + ec.message());
  for (const auto& d : target.dirs) fs::create_directories(work / d, ec);
  for (const auto& [path, content] : target.files) {
    std::ofstream out(work / path, std::ios::binary | std::ios::trunc);
    out << content;
    if (!out) return Error::Harness("cannot roll back " + (work / path).string());
  }
  return Ok();
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

std::vector<std::string> Describe(const Flat& before, const Flat& after, bool ext4) {
  std::vector<std::string> out;
  for (const auto& [path, content] : before.files) {
    auto it = after.files.find(path);
    if (it == after.files.end()) {
      out.push_back(
          path +
          (ext4 ? ": its name was never committed to the journal (no fsync since it was created or "
                  "renamed), gone"
                : ": its name was never made durable (no fsync of its directory), gone"));
    } else if (it->second != content) {
      std::string why = !ext4 ? "un-synced writes lost"
                        : before.ids.at(path) != after.ids.at(path)
                            ? "the rename or re-creation that replaced it was never committed to "
                              "the journal: the "
                              "previous file is back"
                            : Ext4Loss(content, it->second);
      out.push_back(path + ": " + std::to_string(content.size()) + " bytes before the crash, " +
                    std::to_string(it->second.size()) + " after (" + why + ")");
    }
  }
  for (const auto& [path, content] : after.files) {
    if (!before.files.count(path)) {
      out.push_back(path + ": back with " + std::to_string(content.size()) +
                    " bytes (its removal or replacement was never " +
                    (ext4 ? "committed to the journal)" : "made durable)"));
    }
  }
  return out;
}

}  // namespace

Status DurabilityTracker::Snapshot(Tree& tree) const {
  std::vector<std::string> pending = {"."};
  while (!pending.empty()) {
    std::string dir = pending.back();
    pending.pop_back();
    auto entries = List(dir == "." ? work_ : work_ / dir, gens_);
    if (!entries) return entries.error();
    for (const auto& [name, entry] : entries.value()) {
      std::string path = Join(dir, name);
      if (entry.dir)
        pending.push_back(path);
      else
        tree.files[entry.id()] = Slurp(work_ / path);
    }
    tree.dirs[dir] = std::move(entries.value());
  }
  return Ok();
}

Status DurabilityTracker::Survey(Namespace& ns) const {
  std::vector<std::string> pending = {"."};
  while (!pending.empty()) {
    std::string dir = pending.back();
    pending.pop_back();
    std::map<FileId, struct stat> stats;
    auto entries = List(dir == "." ? work_ : work_ / dir, gens_, &stats);
    if (!entries) return entries.error();
    for (const auto& [name, entry] : entries.value()) {
      if (entry.dir) pending.push_back(Join(dir, name));
    }
    for (const auto& [id, st] : stats) ns.files[id] = {st.st_size, st.st_mtim, st.st_ctim};
    ns.dirs[dir] = std::move(entries.value());
  }
  return Ok();
}

Status DurabilityTracker::Begin(const fs::path& work, std::optional<PersistenceModel> model,
                                const fs::path& journal) {
  work_ = work;
  journal_ = model == PersistenceModel::kPower ? journal : fs::path{};
  journal_read_ = 0;
  journal_data_.clear();
  journal_files_.clear();
  if (!journal_.empty()) {
    std::error_code ec;
    fs::remove_all(journal_, ec);
    if (!fs::create_directories(journal_, ec) || ec) {
      return Error::Harness("cannot make " + journal_.string() + ": " + ec.message());
    }
  }
  start_ = {};
  synced_dirs_.clear();
  synced_files_.clear();
  gens_.clear();
  torn_ = !model || *model == PersistenceModel::kTorn;
  cuts_.clear();
  freed_.clear();
  ext4_ = {};
  committed_.clear();
  flushed_.clear();
  truncated_.clear();
  resized_.clear();
  touched_.clear();
  flush_at_close_.clear();
  pending_.clear();
  if (Status s = Snapshot(start_); !s) return s;
  Namespace ns;
  if (Status s = Survey(ns); !s) return s;
  ext4_ = start_;
  committed_ = std::move(ns.files);
  return Ok();
}

DurabilityTracker::FileId DurabilityTracker::Id(ino_t ino) const {
  auto gen = gens_.find(ino);
  return {ino, gen == gens_.end() ? 0 : gen->second};
}

// The inode's last name goes: from now on its number names another file.
void DurabilityTracker::Freed(ino_t ino) { ++gens_[ino]; }

void DurabilityTracker::Release(ino_t ino, const std::string& relpath) {
  if (torn_) freed_[Id(ino)] = Slurp(work_ / relpath);
  Freed(ino);
}

void DurabilityTracker::Cut() {
  Namespace ns;
  if (!Survey(ns)) return;  // the sandbox cannot be listed: one cut fewer to choose from
  if (cuts_.empty() || cuts_.back() != ns.dirs) cuts_.push_back(std::move(ns.dirs));
}

bool DurabilityTracker::StatPath(const std::string& relpath, struct stat& st) const {
  if (relpath.empty() || relpath[0] == '/') return false;  // outside the sandbox
  fs::path p = relpath == "." ? work_ : work_ / relpath;
  return ::lstat(p.c_str(), &st) == 0;
}

void DurabilityTracker::OnOperation(std::string_view point) {
  size_t colon = point.find(':');
  if (colon == std::string_view::npos || colon + 1 == point.size()) return;
  std::string_view op = point.substr(0, colon);
  std::string rest(point.substr(colon + 1));
  if (!journal_.empty()) {
    // The interceptor keeps regular files' syncs in the journal: what is done here comes after
    // them.
    struct stat st;
    bool dir_sync =
        (op == "fsync" || op == "fdatasync") && StatPath(rest, st) && S_ISDIR(st.st_mode);
    if (!dir_sync && op != "rename" && op != "unlink" && op != "sync") return;
    ReadJournal();
  }
  if (op == "fsync" || op == "fdatasync") return OnSync(rest, op == "fdatasync");
  if (op == "sync") return OnSyncAll();
  ResolvePending();
  // torn: the namespace before each name operation is a state a crash may leave. A mkdir
  // point comes late (the shim does not wait there): the state after it, just as reachable.
  if (torn_ && (op == "rename" || op == "mkdir")) Cut();
  if (op == "rename") return OnRename(rest);
  struct stat st;
  bool exists = StatPath(rest, st);
  if (torn_ && (exists ? op == "unlink" : op == "open")) Cut();  // an unlink, a create
  // A directory, a file gone or not yet created: nothing to do, the next commit sees the names.
  if (!exists || !S_ISREG(st.st_mode)) return;
  FileId id = Id(st.st_ino);
  if (op == "write") {
    touched_.insert(id);
  } else if (op == "truncate") {
    pending_.push_back({rest, id, st.st_size, false});
  } else if (op == "open") {
    // O_CREAT or O_TRUNC of an existing file: only a truncation matters, and only a file
    // that had bytes shows one (an O_TRUNC of an empty file goes unseen).
    if (st.st_size > 0) pending_.push_back({rest, id, st.st_size, true});
  } else if (op == "close" && flush_at_close_.count(id)) {
    Flush(id, rest);  // auto_da_alloc: the file was truncated to zero, its new data goes out now
    flush_at_close_.erase(id);
  } else if (op == "unlink" && st.st_nlink <= 1) {
    Release(st.st_ino, rest);
  }
}

// Called at each event: the job has done the opens and truncates seen before it.
void DurabilityTracker::ResolvePending() {
  for (const auto& p : pending_) {
    struct stat st;
    if (!StatPath(p.path, st) || Id(st.st_ino) != p.id) continue;
    if (!p.open)
      Truncated(p.id, st.st_size);
    else if (st.st_size < p.size_before)
      Truncated(p.id, 0);  // O_TRUNC
  }
  pending_.clear();
}

void DurabilityTracker::Truncated(FileId id, off_t size) {
  auto [it, fresh] = truncated_.try_emplace(id, Truncation{size, size});
  if (!fresh) {
    it->second.min = std::min(it->second.min, size);
    it->second.last = size;
  }
  resized_.insert(id);
  touched_.insert(id);
  if (size == 0) flush_at_close_.insert(id);  // ext4_truncate sets EXT4_STATE_DA_ALLOC_CLOSE
}

// The file's dirty data is written back now: it is on disk at the next commit.
void DurabilityTracker::Flush(FileId id, const std::string& relpath) {
  flushed_[id] = Slurp(work_ / relpath);
  truncated_.erase(id);
}

void DurabilityTracker::OnRename(std::string_view operands) {
  // "SRC:DST" where either may hold ':': the source is the prefix that exists (the job is
  // blocked before the rename). A path from outside the sandbox is absolute.
  std::string src, dst;
  struct stat src_st;
  for (size_t at = operands.find(':'); at != std::string_view::npos;
       at = operands.find(':', at + 1)) {
    std::string candidate(operands.substr(0, at));
    bool exists =
        !candidate.empty() && (candidate[0] == '/' ? ::lstat(candidate.c_str(), &src_st) == 0
                                                   : StatPath(candidate, src_st));
    if (exists) {
      src = std::move(candidate);
      dst = std::string(operands.substr(at + 1));
      break;
    }
  }
  if (src.empty()) return;
  bool inside = src[0] != '/';  // else moved in from outside: a new name, seen at the next commit
  if (inside) touched_.insert(Id(src_st.st_ino));  // a rename changes the inode's ctime
  struct stat dst_st;
  if (!StatPath(dst, dst_st) || !S_ISREG(dst_st.st_mode) ||
      (inside && dst_st.st_ino == src_st.st_ino))
    return;
  if (inside && S_ISREG(src_st.st_mode)) {
    Flush(Id(src_st.st_ino),
          src);  // auto_da_alloc: replacing an existing file writes the new one back first
  }
  if (dst_st.st_nlink <= 1) Release(dst_st.st_ino, dst);
}

void DurabilityTracker::OnSync(const std::string& relpath, bool datasync) {
  ResolvePending();
  fs::path p = relpath == "." ? work_ : work_ / relpath;
  struct stat st;
  if (::stat(p.c_str(), &st) != 0) return;
  if (S_ISDIR(st.st_mode)) {
    if (auto entries = List(p, gens_))
      synced_dirs_[relpath] = {cuts_.size(), std::move(entries.value())};
    Commit();  // ext4 always commits the journal for a directory (ext4_force_commit)
  } else if (S_ISREG(st.st_mode)) {
    std::string content = Slurp(p);
    FileId id = Id(st.st_ino);
    synced_files_[id] = content;
    Ext4Sync(id, st, content, datasync);
  }
}

void DurabilityTracker::OnSyncAll() {
  std::vector<std::string> paths = {"."};
  std::error_code ec;
  for (fs::recursive_directory_iterator it(work_, ec), end; !ec && it != end; it.increment(ec)) {
    fs::file_status st = it->symlink_status(ec);
    if (ec) break;
    if (fs::is_directory(st) || fs::is_regular_file(st))
      paths.push_back(it->path().lexically_relative(work_).string());
  }
  // Files first, then each folder: the folders' entries name what is already durable.
  std::stable_partition(paths.begin(), paths.end(), [&](const std::string& p) {
    struct stat st;
    return StatPath(p, st) && S_ISREG(st.st_mode);
  });
  for (const std::string& p : paths) OnSync(p);
}

// ext4_sync_file: the file's data is written back and waited for, then the journal commits
// the transaction that last changed the inode (i_sync_tid), or for fdatasync the one that
// last changed its size or allocation (i_datasync_tid), if it has not committed yet. One
// running transaction holds every metadata change of the file system, so that commit makes
// all of them durable, in order. An inode with nothing new since the last commit needs none.
void DurabilityTracker::Ext4Sync(FileId id, const struct stat& st, const std::string& content,
                                 bool datasync) {
  auto stamp = committed_.find(id);
  auto durable = ext4_.files.find(id);
  bool allocation = stamp == committed_.end() || durable == ext4_.files.end() ||
                    durable->second.size() != content.size() || resized_.count(id);
  bool changed = allocation || touched_.count(id) ||
                 !(stamp->second == Stamp{st.st_size, st.st_mtim, st.st_ctim});
  flushed_[id] = content;
  truncated_.erase(id);
  if (allocation || (!datasync && changed)) {
    Commit();
  } else {
    ext4_.files[id] = content;  // overwritten in place and waited for: durable without a commit
    flushed_.erase(id);
  }
}

// A journal commit: the names as they are now; each file's size as committed, with the data
// written back before it (data=ordered) or still on disk from before.
void DurabilityTracker::Commit() {
  Namespace ns;
  if (!Survey(ns)) return;  // the sandbox cannot be listed: keep the last commit
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

// A directory's entries after a crash with the namespace cut at `cut`: as at its last fsync if
// that came after the cut, else as at the cut; a directory that did not exist then is empty.
DurabilityTracker::Entries DurabilityTracker::EntriesAt(const std::string& dir, size_t cut,
                                                        const Tree& now) const {
  auto synced = synced_dirs_.find(dir);
  if (synced != synced_dirs_.end() && synced->second.after >= cut) return synced->second.entries;
  const auto& dirs = cut == 0 ? start_.dirs : cut <= cuts_.size() ? cuts_[cut - 1] : now.dirs;
  auto it = dirs.find(dir);
  return it == dirs.end() ? Entries{} : it->second;
}

void DurabilityTracker::BuildAt(const std::string& dir, size_t cut, const Tree& now,
                                Tree& out) const {
  Entries entries = EntriesAt(dir, cut, now);
  for (const auto& [name, entry] : entries) {
    if (entry.dir) BuildAt(Join(dir, name), cut, now, out);
  }
  out.dirs[dir] = std::move(entries);
}

// Each file's durable content: as last synced, else as at the start; a file absent from both
// was created since and never synced: empty.
DurabilityTracker::Tree DurabilityTracker::Crashed(size_t cut, const Tree& now) const {
  Tree t;
  BuildAt(".", cut, now, t);
  t.files = start_.files;
  for (const auto& [id, content] : synced_files_) t.files[id] = content;
  return t;
}

// torn: each file the crashed namespace names gets a sector mix of its durable content and
// its last one (now, or when it was freed), once, whatever names it has.
void DurabilityTracker::TearContents(Tree& crashed, const Tree& now, uint64_t seed) const {
  std::set<FileId> named;
  for (const auto& [dir, entries] : crashed.dirs) {
    for (const auto& [name, entry] : entries) {
      if (!entry.dir) named.insert(entry.id());
    }
  }
  static const std::string kNothing;
  PlanRng rng(seed);
  for (const FileId& id : named) {
    auto durable = crashed.files.find(id);
    const std::string& old_bytes = durable == crashed.files.end() ? kNothing : durable->second;
    auto live = now.files.find(id);
    auto freed = freed_.find(id);
    const std::string& new_bytes = live != now.files.end() ? live->second
                                   : freed != freed_.end() ? freed->second
                                                           : old_bytes;
    if (new_bytes != old_bytes) crashed.files[id] = Tear(old_bytes, new_bytes, rng);
  }
}

// Bytes [off, off + len) of the process's data file, as far as they are there, added to `out`:
// only what the lines name is read, never a whole data file.
void DurabilityTracker::AppendJournalData(int pid, uint64_t off, uint64_t len, std::string& out) {
  auto [it, fresh] = journal_data_.try_emplace(pid);
  if (fresh) it->second.open(journal_ / ("data-" + std::to_string(pid)), std::ios::binary);
  std::ifstream& in = it->second;
  in.clear();
  in.seekg(static_cast<std::streamoff>(off));
  size_t at = out.size();
  out.resize(at + len);
  in.read(out.data() + at, static_cast<std::streamsize>(len));
  out.resize(at + static_cast<size_t>(std::max<std::streamsize>(0, in.gcount())));
}

// Each line: "F <ino> <pid> <off> <len>" (the whole content) or "A <ino> <pid> <off> <len>
// <keep>" (the first <keep> bytes of what <pid> recorded last for <ino>, then the new bytes):
// harness/shim/shadow.h, harness/supervisor/journal.h. No inode number is freed between two reads,
// so a file's last line read gives its content.
void DurabilityTracker::ReadJournal() {
  std::ifstream in(journal_ / "journal", std::ios::binary);
  if (!in) return;
  in.seekg(static_cast<std::streamoff>(journal_read_));
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  size_t complete = text.rfind('\n');  // a line still being written waits for the next read
  if (complete == std::string::npos) return;
  journal_read_ += complete + 1;
  std::map<ino_t, std::pair<int, ino_t>> last;
  std::istringstream lines(text.substr(0, complete + 1));
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    char kind = 0;
    unsigned long long ino = 0, off = 0, len = 0, keep = 0;
    int pid = 0;
    if (!(fields >> kind >> ino >> pid >> off >> len) || (kind == 'A' && !(fields >> keep)))
      continue;
    std::string& content = journal_files_[{pid, static_cast<ino_t>(ino)}];
    content.resize(kind == 'A' ? std::min<size_t>(keep, content.size()) : 0);
    AppendJournalData(pid, off, len, content);
    last[static_cast<ino_t>(ino)] = {pid, static_cast<ino_t>(ino)};
  }
  for (const auto& [ino, key] : last) synced_files_[Id(ino)] = journal_files_[key];
}

Result<std::vector<std::string>> DurabilityTracker::Apply(PersistenceModel model, uint64_t seed) {
  if (model == PersistenceModel::kProcess) return std::vector<std::string>{};
  if (!journal_.empty()) ReadJournal();
  Tree now;
  if (Status s = Snapshot(now); !s) return s.error();
  Flat before, target;
  Flatten(now.dirs, now.files, ".", before);
  bool ext4 = model == PersistenceModel::kExt4Ordered;
  if (ext4) {
    ResolvePending();
    Flatten(ext4_.dirs, ext4_.files, ".", target);
  } else if (model == PersistenceModel::kTorn) {
    PlanRng rng(seed);
    Tree t = Crashed(rng.Below(cuts_.size() + 2), now);
    TearContents(t, now, rng.Next());
    Flatten(t.dirs, t.files, ".", target);
  } else {
    Tree t = Crashed(0, now);
    Flatten(t.dirs, t.files, ".", target);
  }
  if (Status s = Rewrite(work_, target); !s) return s.error();
  return Describe(before, target, ext4);
}

}  // namespace killpoint
