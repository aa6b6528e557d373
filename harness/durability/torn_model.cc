#include "durability/torn_model.h"

#include <algorithm>
#include <set>

#include "plan/rng.h"

namespace killpoint::durability {
namespace {

constexpr size_t kTornSector = 512;

// A seeded mix of two versions of a file, sector by sector, with a length between them.
std::string Tear(const std::string& old_bytes, const std::string& new_bytes, PlanRng& rng) {
  size_t lo = std::min(old_bytes.size(), new_bytes.size());
  size_t hi = std::max(old_bytes.size(), new_bytes.size());
  size_t size = lo + rng.Below(hi - lo + 1);
  std::string out(size, '\0');
  for (size_t at = 0; at < size; at += kTornSector) {
    const std::string& from = rng.Chance(0.5) ? new_bytes : old_bytes;
    for (size_t i = at; i < std::min(size, at + kTornSector); ++i)
      out[i] = i < from.size() ? from[i] : '\0';
  }
  return out;
}

}  // namespace

Status TornModel::Begin(const Sandbox&, const Tree& start) {
  record_.Begin(start);
  cuts_.clear();
  freed_.clear();
  return Ok();
}

// The namespace before each name operation is a state a crash may leave: a rename, an unlink,
// an open that creates. A mkdir point comes late (the shim does not wait there): the state
// after it, just as reachable.
void TornModel::OnOperation(const Sandbox& sandbox, const Operation& op) {
  if (op.op == "rename" || op.op == "mkdir" || (op.exists ? op.op == "unlink" : op.op == "open"))
    Cut(sandbox);
}

void TornModel::OnFreed(const Sandbox& sandbox, FileId id, const std::string& path) {
  freed_[id] = Slurp(sandbox.work() / path);
}

void TornModel::Cut(const Sandbox& sandbox) {
  Namespace ns;
  if (!sandbox.Survey(ns)) return;  // the sandbox cannot be listed: one cut fewer to choose from
  if (cuts_.empty() || cuts_.back() != ns.dirs) cuts_.push_back(std::move(ns.dirs));
}

Tree TornModel::Survivors(const Sandbox&, const Tree& now, uint64_t seed) {
  PlanRng rng(seed);
  Tree t = record_.Crashed(rng.Below(cuts_.size() + 2), cuts_, now);
  TearContents(t, now, rng.Next());
  return t;
}

// Each file the crashed namespace names gets a sector mix of its durable content and its last
// one (now, or when it was freed), once, whatever names it has.
void TornModel::TearContents(Tree& crashed, const Tree& now, uint64_t seed) const {
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

}  // namespace killpoint::durability
