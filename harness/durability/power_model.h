// power: only what POSIX promises survives a power cut. Each directory's entries as last
// fsync'ed (else as at the start); each file's content as last fsync'ed or fdatasync'ed (else
// as at the start, else empty: a file created and never synced). Regular files' syncs may come
// from the interceptor's journal (harness/shim/shadow.h, harness/supervisor/journal.h).
#pragma once

#include "durability/model.h"
#include "durability/sync_record.h"

namespace killpoint::durability {

class PowerModel : public Model {
 public:
  PersistenceModel kind() const override { return PersistenceModel::kPower; }
  Status Begin(const Sandbox&, const Tree& start) override {
    record_.Begin(start);
    return Ok();
  }
  void OnOperation(const Sandbox&, const Operation&) override {}
  void OnSync(const Sandbox&, const Sync& sync) override { record_.OnSync(sync); }
  void OnFreed(const Sandbox&, FileId, const std::string&) override {}
  bool TakesJournal() const override { return true; }
  Tree Survivors(const Sandbox&, const Tree& now, uint64_t) override {
    return record_.Crashed(0, {}, now);
  }

 private:
  SyncRecord record_;
};

}  // namespace killpoint::durability
