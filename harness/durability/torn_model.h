// torn: one seeded cut among the namespace states recorded (the start, each point that
// creates, renames, unlinks or makes a directory, the kill): each directory's entries as at
// the cut, or as at its last fsync if that is later; each file's content a seeded mix of its
// durable (power) content and its last one, 512-byte sector by sector, with a length between
// the two. A freed file's content is read when it is freed (the job is blocked before the
// operation): a cut before it may name the file again.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "durability/model.h"
#include "durability/sync_record.h"

namespace killpoint::durability {

class TornModel : public Model {
 public:
  PersistenceModel kind() const override { return PersistenceModel::kTorn; }
  Status Begin(const Sandbox& sandbox, const Tree& start) override;
  void OnOperation(const Sandbox& sandbox, const Operation& op) override;
  void OnSync(const Sandbox&, const Sync& sync) override { record_.OnSync(sync, cuts_.size()); }
  void OnFreed(const Sandbox& sandbox, FileId id, const std::string& path) override;
  bool Seeded() const override { return true; }
  Tree Survivors(const Sandbox& sandbox, const Tree& now, uint64_t seed) override;

 private:
  // The namespace as it is now (before the operation the job is blocked at).
  void Cut(const Sandbox& sandbox);
  void TearContents(Tree& crashed, const Tree& now, uint64_t seed) const;

  SyncRecord record_;
  std::vector<Dirs> cuts_;               // namespace states since Begin, in order
  std::map<FileId, std::string> freed_;  // freed files -> their content then
};

}  // namespace killpoint::durability
