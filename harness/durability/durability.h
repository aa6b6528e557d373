// What survives a crash of the machine, not just of the job. The tracker snapshots the
// sandbox when an attempt starts (taken as durable: the time between attempts lets writeback
// finish) and, while the job is blocked at each crash point of the syscall shim it is let
// through to, records what that operation changes for durability. After a kill, Apply
// rewrites the sandbox to what the chosen persistence model says survived. Names and contents
// are separate questions: a directory's entries say which file (inode) each name points to;
// a file's content belongs to the file, whatever names it had (a disk never mixes two files):
//   process: everything (a kill -9: the page cache survives), nothing to do;
//   power:   only what POSIX promises: each directory's entries as last fsync'ed (else as at
//            the start), each file's content as last fsync'ed or fdatasync'ed (else as at the
//            start, else empty: a file created and never synced);
//   torn:    one seeded cut among the namespace states the tracker recorded (the start, each
//            point that creates, renames, unlinks or makes a directory, the kill): each
//            directory's entries as at the cut, or as at its last fsync if that is later; each
//            file's content a seeded mix of its durable (power) and its last content, 512-byte
//            sector by sector, with a length between the two;
//   ext4-ordered: what ext4 with its default options (data=ordered, delalloc, auto_da_alloc)
//            does: each fsync that commits the journal makes every name operation issued so
//            far durable, in order; file data is on disk only once written back (fsync, or
//            auto_da_alloc at a rename over an existing file or at the close of a file
//            truncated to zero); a committed size without its data reads as zeros or is cut.
//            Periodic (commit=5) and background writeback are ignored: the crash comes right
//            after the kill. docs/persistence-models.md gives the rules and their sources.
// Files are known by inode number and a generation, bumped when the tracker sees the inode
// freed (an unlink or a rename over its last name): ext4 hands a freed number to the next
// new file at once, which must not inherit the old file's durable content. Under torn, a
// freed file's content is read at that point (the job is blocked before the operation): a cut
// before it may name the file again.
// Under power, with a journal directory given to Begin, the interceptor (the shim or the
// supervisor) records what each sync of a regular file makes durable itself
// (harness/shim/shadow.h, harness/supervisor/journal.h), without waiting: the tracker reads that
// journal before each operation it still hears while the job is held (a directory's sync, an
// unlink, a rename: WaitOps) and at Apply.
// Not thread-safe: the runner and the control channel call it under AttemptState's lock.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <compare>
#include <cstdint>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "scenario/persistence_model.h"
#include "util/result.h"

namespace killpoint {

class DurabilityTracker {
 public:
  // The shim's operations the tracker must see while the job is blocked before them (the
  // sandbox is read then): all but writes, whose reports may come later (KILLPOINT_WAIT_OPS).
  static constexpr const char* kWaitOps = "open,truncate,fsync,fdatasync,rename,unlink,close,sync";
  // The same with the journal: the ops that free an inode number. A directory's sync waits too
  // (the interceptor holds it: the op alone does not say it is one).
  static constexpr const char* kJournalWaitOps = "rename,unlink";

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

  // Snapshots `work` as the durable state at the start of an attempt. `model`: the one Apply
  // will be asked for, when known: the tracker then records only what that model reads (torn
  // alone needs namespace states at each name operation and the content of freed files).
  // None: record for every model.
  // `journal`: a directory for the interceptor's durability journal (KILLPOINT_SHADOW), made
  // afresh; used under power only (journal() says whether it is).
  Status Begin(const std::filesystem::path& work,
               std::optional<PersistenceModel> model = std::nullopt,
               const std::filesystem::path& journal = {});
  // The journal directory the interceptor must be given this attempt; empty: none.
  const std::filesystem::path& journal() const { return journal_; }
  // The ops the job must wait at for this tracker (KILLPOINT_WAIT_OPS).
  const char* WaitOps() const { return journal_.empty() ? kWaitOps : kJournalWaitOps; }
  // Whether points reported one way (SEEN) tell it anything: not with the journal, where they
  // are writes and regular files' syncs, which the journal has.
  bool HearsOneWay() const { return journal_.empty(); }

  // The job is about to do the operation of the shim's crash point `point` ("<op>:<relpath>",
  // "rename:SRC:DST", see docs/syscall-shim.md) and will do it: call it for every syscall point
  // the job is let through to (not for a kill before the operation), while the job is blocked.
  // fsync and fdatasync points go to OnSync; open, write, truncate, rename and close feed
  // ext4-ordered; unlink and rename tell every model that an inode number is freed; under
  // torn, an open that creates, a rename, an unlink and a mkdir (whose point comes late, after
  // it) record the namespace as a cut. Unknown or malformed points need nothing.
  void OnOperation(std::string_view point);

  // The job is about to fsync (`datasync`: fdatasync) `relpath`, a file or a directory, and
  // will do it. OnOperation calls it for fsync/fdatasync points: call one or the other.
  void OnSync(const std::string& relpath, bool datasync = false);
  // sync(2), or syncfs(2) of the sandbox's file system ("sync:."): every file and folder of the
  // sandbox is synced, as by an fsync of each. OnOperation calls it for a sync point.
  void OnSyncAll();

  // Rewrites the sandbox to what survives under `model`; returns one line per change, for
  // the history ("publish-state.json: rename never made durable, gone").
  Result<std::vector<std::string>> Apply(PersistenceModel model, uint64_t seed);

 private:
  struct Tree {
    std::map<std::string, Entries> dirs;  // relpath of a directory -> its entries
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
  struct Namespace {
    std::map<std::string, Entries> dirs;
    std::map<FileId, Stamp> files;  // regular files only
  };
  // Truncations of a file since its data was last written back (ext4-ordered).
  struct Truncation {
    off_t min = 0;   // the smallest size it was cut to: data beyond is gone
    off_t last = 0;  // the size the last truncate set
  };
  // An open (O_CREAT or O_TRUNC: the point does not say which) or truncate whose new size is
  // read at the next event, once the job has done it.
  struct Pending {
    std::string path;
    FileId id;
    off_t size_before = 0;
    bool open = false;
  };

  // A directory's entries at its last fsync; `after`: how many cuts were recorded before it.
  struct DirSync {
    size_t after = 0;
    Entries entries;
  };

  Status Snapshot(Tree& tree) const;
  // What survives with the namespace cut at `cut`: 0 the start, 1..cuts_.size() a recorded
  // cut, cuts_.size() + 1 the kill (`now`); file contents as durable.
  Tree Crashed(size_t cut, const Tree& now) const;
  void BuildAt(const std::string& dir, size_t cut, const Tree& now, Tree& out) const;
  Entries EntriesAt(const std::string& dir, size_t cut, const Tree& now) const;
  void TearContents(Tree& crashed, const Tree& now, uint64_t seed) const;

  // The journal's lines not read yet: each file's content at its last sync.
  void ReadJournal();
  void AppendJournalData(int pid, uint64_t off, uint64_t len, std::string& out);

  // torn: the namespace as it is now (before the operation the job is blocked at).
  void Cut();
  // The inode's last name goes: under torn its content is kept first.
  void Release(ino_t ino, const std::string& relpath);

  // ext4-ordered.
  FileId Id(ino_t ino) const;
  void Freed(ino_t ino);
  Status Survey(Namespace& ns) const;
  bool StatPath(const std::string& relpath, struct stat& st) const;
  void ResolvePending();
  void Truncated(FileId id, off_t size);
  void Flush(FileId id, const std::string& relpath);
  void Ext4Sync(FileId id, const struct stat& st, const std::string& content, bool datasync);
  void Commit();
  void OnRename(std::string_view operands);

  std::filesystem::path work_;
  Tree start_;                                  // at Begin
  std::map<std::string, DirSync> synced_dirs_;  // since Begin
  std::map<FileId, std::string> synced_files_;  // since Begin
  std::map<ino_t, uint32_t> gens_;              // inode number -> generation, when not 0

  // The journal (power): where, how far read, each recorder's data file open (a process of the
  // job under the shim, the supervisor), the content each recorded last of each inode number.
  std::filesystem::path journal_;
  size_t journal_read_ = 0;
  std::map<int, std::ifstream> journal_data_;
  std::map<std::pair<int, ino_t>, std::string> journal_files_;

  // torn only (Begin's model is torn or unknown).
  bool torn_ = true;
  std::vector<std::map<std::string, Entries>> cuts_;  // namespace states since Begin, in order
  std::map<FileId, std::string> freed_;               // freed files -> their content then

  // ext4-ordered: the journal's view, as of the last commit (Begin counts as one).
  Tree ext4_;                               // durable names and contents
  std::map<FileId, Stamp> committed_;       // regular files at the last commit
  std::map<FileId, std::string> flushed_;   // written back since the last commit -> that content
  std::map<FileId, Truncation> truncated_;  // since their last write-back or commit
  std::set<FileId> resized_;                // truncated since the last commit
  std::set<FileId> touched_;                // written, truncated or renamed since the last commit
  std::set<FileId> flush_at_close_;         // truncated to zero: auto_da_alloc at the next close
  std::vector<Pending> pending_;
};

}  // namespace killpoint
