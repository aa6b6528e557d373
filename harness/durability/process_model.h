// process: a kill -9 of the job. The page cache survives: everything the job did stays, so the
// unit records nothing and Apply leaves the sandbox as it is.
#pragma once

#include "durability/model.h"

namespace killpoint::durability {

class ProcessModel : public Model {
 public:
  PersistenceModel kind() const override { return PersistenceModel::kProcess; }
  Status Begin(const Sandbox&, const Tree&) override { return Ok(); }
  void OnOperation(const Sandbox&, const Operation&) override {}
  void OnSync(const Sandbox&, const Sync&) override {}
  void OnFreed(const Sandbox&, FileId, const std::string&) override {}
  bool Rewrites() const override { return false; }
  Tree Survivors(const Sandbox&, const Tree& now, uint64_t) override { return now; }
};

}  // namespace killpoint::durability
