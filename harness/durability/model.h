// A persistence model as a unit: what it records while the job runs, and what it says survives
// a crash (docs/persistence-models.md). The tracker (durability.h) reads the sandbox and the
// shim's points, and hands each unit the same facts; a unit keeps only its own state. Adding a
// model: its own file deriving from Model, and one line in model_registry.cc.
// Every hook is called while the job is blocked before the operation it names: the sandbox
// shows the state before it (a mkdir's point comes late: after it).
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "durability/rewrite.h"
#include "durability/tree.h"
#include "scenario/persistence_model.h"
#include "util/result.h"

namespace killpoint::durability {

// An operation of the shim's crash points other than a sync: "open", "write", "truncate",
// "close", "unlink", "mkdir", "rename" (docs/syscall-shim.md).
struct Operation {
  std::string_view op;
  // Its path; for a rename the source (the prefix of "SRC:DST" that exists; absolute when it
  // comes from outside the sandbox), empty when no prefix does.
  std::string path;
  bool exists = false;  // path's lstat below is valid
  struct stat st {};
  // A rename's destination, and its lstat when it exists inside the sandbox.
  std::string dst;
  bool dst_exists = false;
  struct stat dst_st {};
};

// An fsync, an fdatasync, or a file's sync read from the interceptor's journal.
struct Sync {
  enum class Kind { kGone, kDir, kFile };
  std::string path;
  bool datasync = false;
  Kind kind = Kind::kGone;
  struct stat st {};               // kDir, kFile (not from the journal)
  std::optional<Entries> entries;  // kDir, when the directory could be listed
  FileId id;                       // kFile
  std::string content;             // kFile
  bool journaled = false;          // kFile from the journal: `st` is not set
};

class Model {
 public:
  virtual ~Model() = default;
  virtual PersistenceModel kind() const = 0;

  // The attempt starts from `start`, taken as durable.
  virtual Status Begin(const Sandbox& sandbox, const Tree& start) = 0;
  // The job is about to do `op` and will do it.
  virtual void OnOperation(const Sandbox& sandbox, const Operation& op) = 0;
  virtual void OnSync(const Sandbox& sandbox, const Sync& sync) = 0;
  // The operation about to be done frees `id` (its last name, `path`, goes), after every
  // OnOperation of the same point: the generation is bumped after this.
  virtual void OnFreed(const Sandbox& sandbox, FileId id, const std::string& path) = 0;

  // Whether Apply rewrites the sandbox at all (not for process: everything survives).
  virtual bool Rewrites() const { return true; }
  // Whether regular files' syncs may come from the interceptor's journal (KILLPOINT_SHADOW)
  // rather than from the sandbox at each sync point.
  virtual bool TakesJournal() const { return false; }
  // Whether Survivors' seed chooses among several states (torn); else it is ignored.
  virtual bool Seeded() const { return false; }
  // What survives, the sandbox being `now`; `seed` chooses among the states a model allows.
  virtual Tree Survivors(const Sandbox& sandbox, const Tree& now, uint64_t seed) = 0;
  virtual const Wording& wording() const { return PosixWording(); }
};

}  // namespace killpoint::durability
