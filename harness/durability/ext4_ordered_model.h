// ext4-ordered: what ext4 with its default options (data=ordered, delalloc, auto_da_alloc)
// keeps. Each fsync that commits the journal makes every name operation issued so far durable,
// in order; file data is on disk only once written back (fsync, or auto_da_alloc at a rename
// over an existing file or at the close of a file truncated to zero); a committed size without
// its data reads as zeros or is cut. Periodic (commit=5) and background writeback are ignored:
// the crash comes right after the kill. docs/persistence-models.md gives the rules and sources.
#pragma once

#include <sys/types.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "durability/model.h"

namespace killpoint::durability {

class Ext4OrderedModel : public Model {
 public:
  PersistenceModel kind() const override { return PersistenceModel::kExt4Ordered; }
  Status Begin(const Sandbox& sandbox, const Tree& start) override;
  void OnOperation(const Sandbox& sandbox, const Operation& op) override;
  void OnSync(const Sandbox& sandbox, const Sync& sync) override;
  void OnFreed(const Sandbox&, FileId, const std::string&) override {}
  Tree Survivors(const Sandbox& sandbox, const Tree& now, uint64_t seed) override;
  const Wording& wording() const override;

 private:
  // Truncations of a file since its data was last written back.
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

  void OnRename(const Sandbox& sandbox, const Operation& op);
  // Called at each event: the job has done the opens and truncates seen before it.
  void ResolvePending(const Sandbox& sandbox);
  void Truncated(FileId id, off_t size);
  // The file's dirty data is written back now: it is on disk at the next commit.
  void Flush(const Sandbox& sandbox, FileId id, const std::string& relpath);
  void SyncFile(const Sandbox& sandbox, const Sync& sync);
  void Commit(const Sandbox& sandbox);

  // The journal's view, as of the last commit (Begin counts as one).
  Tree ext4_;                               // durable names and contents
  std::map<FileId, Stamp> committed_;       // regular files at the last commit
  std::map<FileId, std::string> flushed_;   // written back since the last commit -> that content
  std::map<FileId, Truncation> truncated_;  // since their last write-back or commit
  std::set<FileId> resized_;                // truncated since the last commit
  std::set<FileId> touched_;                // written, truncated or renamed since the last commit
  std::set<FileId> flush_at_close_;         // truncated to zero: auto_da_alloc at the next close
  std::vector<Pending> pending_;
};

}  // namespace killpoint::durability
