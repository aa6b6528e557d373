// What survives a crash of the machine, not just of the job. The tracker snapshots the
// sandbox when an attempt starts (taken as durable: the time between attempts lets writeback
// finish) and, while the job is blocked at each crash point of the syscall shim it is let
// through to, tells each persistence model's unit (model.h, model_registry.h) what that
// operation is. After a kill, Apply rewrites the sandbox to what the chosen model's unit says
// survived. Names and contents are separate questions: a directory's entries say which file
// (inode) each name points to; a file's content belongs to the file, whatever names it had (a
// disk never mixes two files). The models (docs/persistence-models.md):
//   process:      everything (a kill -9: the page cache survives), process_model.h;
//   power:        only what POSIX promises, power_model.h;
//   torn:         one seeded cut among the namespace states, contents torn by sector,
//                 torn_model.h;
//   ext4-ordered: what ext4 with its default options keeps, ext4_ordered_model.h.
// Files are known by inode number and a generation (tree.h), bumped when the tracker sees the
// inode freed (an unlink or a rename over its last name).
// With a journal directory given to Begin and a model that takes it (power), the interceptor
// (the shim or the supervisor) records what each sync of a regular file makes durable itself
// (sync_journal.h), without waiting: the tracker reads that journal before each operation it
// still hears while the job is held (a directory's sync, an unlink, a rename: WaitOps) and at
// Apply.
// Not thread-safe: the runner and the control channel call it under AttemptState's lock.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "durability/model.h"
#include "durability/sync_journal.h"
#include "durability/tree.h"
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

  using FileId = durability::FileId;
  using Entry = durability::Entry;
  using Entries = durability::Entries;  // name -> entry

  // Snapshots `work` as the durable state at the start of an attempt. `model`: the one Apply
  // will be asked for, when known: the tracker then makes only that model's unit, which
  // records only what it reads. None: a unit of every registered model.
  // `journal`: a directory for the interceptor's durability journal (KILLPOINT_SHADOW), made
  // afresh; used under power only (journal() says whether it is).
  Status Begin(const std::filesystem::path& work,
               std::optional<PersistenceModel> model = std::nullopt,
               const std::filesystem::path& journal = {});
  // The journal directory the interceptor must be given this attempt; empty: none.
  const std::filesystem::path& journal() const { return journal_.dir(); }
  // The ops the job must wait at for this tracker (KILLPOINT_WAIT_OPS).
  const char* WaitOps() const { return journal().empty() ? kWaitOps : kJournalWaitOps; }
  // Whether points reported one way (SEEN) tell it anything: not with the journal, where they
  // are writes and regular files' syncs, which the journal has.
  bool HearsOneWay() const { return journal().empty(); }

  // The job is about to do the operation of the shim's crash point `point` ("<op>:<relpath>",
  // "rename:SRC:DST", see docs/syscall-shim.md) and will do it: call it for every syscall point
  // the job is let through to (not for a kill before the operation), while the job is blocked.
  // fsync and fdatasync points go to OnSync, a sync point to OnSyncAll; every other point goes
  // to each unit (Model::OnOperation), then an unlink or a rename that frees an inode number
  // to each unit (Model::OnFreed). Malformed points need nothing.
  void OnOperation(std::string_view point);

  // The job is about to fsync (`datasync`: fdatasync) `relpath`, a file or a directory, and
  // will do it. OnOperation calls it for fsync/fdatasync points: call one or the other.
  void OnSync(const std::string& relpath, bool datasync = false);
  // sync(2), or syncfs(2) of the sandbox's file system ("sync:."): every file and folder of the
  // sandbox is synced, as by an fsync of each. OnOperation calls it for a sync point.
  void OnSyncAll();

  // Rewrites the sandbox to what survives under `model`; returns one line per change, for
  // the history ("publish-state.json: rename never made durable, gone"). `model` must be
  // Begin's, or Begin must have had none.
  Result<std::vector<std::string>> Apply(PersistenceModel model, uint64_t seed);

 private:
  // A point's operation, its path and a rename's operands read from the sandbox.
  durability::Operation Decode(std::string_view op, std::string rest) const;
  void ReadJournal();

  durability::Sandbox sandbox_;
  durability::SyncJournal journal_;  // its dir is empty unless the unit takes it
  std::vector<std::unique_ptr<durability::Model>> units_;
};

}  // namespace killpoint
