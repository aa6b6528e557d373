#include "durability/durability.h"

#include <sys/stat.h>

#include <algorithm>

#include "durability/model_registry.h"
#include "durability/rewrite.h"

namespace killpoint {

namespace {
namespace fs = std::filesystem;
}  // namespace

Status DurabilityTracker::Begin(const fs::path& work, std::optional<PersistenceModel> model,
                                const fs::path& journal) {
  sandbox_.Reset(work);
  units_.clear();
  if (model) {
    auto unit = durability::MakeModel(*model);
    if (!unit)
      return Error::Harness("no unit for the persistence model " + std::string(NameOf(*model)));
    units_.push_back(std::move(unit));
  } else {
    for (const auto& unit : durability::ModelUnits()) units_.push_back(unit.make());
  }
  bool journaled = model && units_.front()->TakesJournal();
  if (Status s = journal_.Begin(journaled ? journal : fs::path{}); !s) return s;
  durability::Tree start;
  if (Status s = sandbox_.Snapshot(start); !s) return s;
  for (const auto& unit : units_) {
    if (Status s = unit->Begin(sandbox_, start); !s) return s;
  }
  return Ok();
}

durability::Operation DurabilityTracker::Decode(std::string_view op, std::string rest) const {
  durability::Operation out;
  out.op = op;
  if (op != "rename") {
    out.exists = sandbox_.StatPath(rest, out.st);
    out.path = std::move(rest);
    return out;
  }
  // "SRC:DST" where either may hold ':': the source is the prefix that exists (the job is
  // blocked before the rename). A path from outside the sandbox is absolute.
  std::string_view operands = rest;
  for (size_t at = operands.find(':'); at != std::string_view::npos;
       at = operands.find(':', at + 1)) {
    std::string candidate(operands.substr(0, at));
    bool exists =
        !candidate.empty() && (candidate[0] == '/' ? ::lstat(candidate.c_str(), &out.st) == 0
                                                   : sandbox_.StatPath(candidate, out.st));
    if (exists) {
      out.exists = true;
      out.path = std::move(candidate);
      out.dst = std::string(operands.substr(at + 1));
      out.dst_exists = sandbox_.StatPath(out.dst, out.dst_st);
      break;
    }
  }
  return out;
}

void DurabilityTracker::OnOperation(std::string_view point) {
  size_t colon = point.find(':');
  if (colon == std::string_view::npos || colon + 1 == point.size()) return;
  std::string_view op = point.substr(0, colon);
  std::string rest(point.substr(colon + 1));
  if (!journal().empty()) {
    // The interceptor keeps regular files' syncs in the journal: what is done here comes after
    // them.
    struct stat st;
    bool dir_sync =
        (op == "fsync" || op == "fdatasync") && sandbox_.StatPath(rest, st) && S_ISDIR(st.st_mode);
    if (!dir_sync && op != "rename" && op != "unlink" && op != "sync") return;
    ReadJournal();
  }
  if (op == "fsync" || op == "fdatasync") return OnSync(rest, op == "fdatasync");
  if (op == "sync") return OnSyncAll();
  durability::Operation o = Decode(op, std::move(rest));
  for (const auto& unit : units_) unit->OnOperation(sandbox_, o);
  // The inode's last name goes: each unit hears it before its number names another file.
  const std::string* freed = nullptr;
  ino_t ino = 0;
  if (op == "unlink" && o.exists && S_ISREG(o.st.st_mode) && o.st.st_nlink <= 1) {
    freed = &o.path;
    ino = o.st.st_ino;
  } else if (op == "rename" && o.dst_exists && S_ISREG(o.dst_st.st_mode) &&
             o.dst_st.st_nlink <= 1 && (o.path[0] == '/' || o.dst_st.st_ino != o.st.st_ino)) {
    freed = &o.dst;
    ino = o.dst_st.st_ino;
  }
  if (!freed) return;
  for (const auto& unit : units_) unit->OnFreed(sandbox_, sandbox_.Id(ino), *freed);
  sandbox_.Freed(ino);
}

void DurabilityTracker::OnSync(const std::string& relpath, bool datasync) {
  durability::Sync sync;
  sync.path = relpath;
  sync.datasync = datasync;
  fs::path p = sandbox_.PathOf(relpath);
  if (::stat(p.c_str(), &sync.st) == 0) {
    if (S_ISDIR(sync.st.st_mode)) {
      sync.kind = durability::Sync::Kind::kDir;
      if (auto entries = sandbox_.List(p)) sync.entries = std::move(entries.value());
    } else if (S_ISREG(sync.st.st_mode)) {
      sync.kind = durability::Sync::Kind::kFile;
      sync.id = sandbox_.Id(sync.st.st_ino);
      sync.content = durability::Slurp(p);
    }
  }
  for (const auto& unit : units_) unit->OnSync(sandbox_, sync);
}

void DurabilityTracker::OnSyncAll() {
  std::vector<std::string> paths = {"."};
  std::error_code ec;
  const fs::path& work = sandbox_.work();
  for (fs::recursive_directory_iterator it(work, ec), end; !ec && it != end; it.increment(ec)) {
    fs::file_status st = it->symlink_status(ec);
    if (ec) break;
    if (fs::is_directory(st) || fs::is_regular_file(st))
      paths.push_back(it->path().lexically_relative(work).string());
  }
  // Files first, then each folder: the folders' entries name what is already durable.
  std::stable_partition(paths.begin(), paths.end(), [&](const std::string& p) {
    struct stat st;
    return sandbox_.StatPath(p, st) && S_ISREG(st.st_mode);
  });
  for (const std::string& p : paths) OnSync(p);
}

// Each file the journal names, synced as it recorded it.
void DurabilityTracker::ReadJournal() {
  for (auto& [ino, content] : journal_.ReadNew()) {
    durability::Sync sync;
    sync.kind = durability::Sync::Kind::kFile;
    sync.journaled = true;
    sync.id = sandbox_.Id(ino);
    sync.content = std::move(content);
    for (const auto& unit : units_) unit->OnSync(sandbox_, sync);
  }
}

Result<std::vector<std::string>> DurabilityTracker::Apply(PersistenceModel model, uint64_t seed) {
  auto unit =
      std::find_if(units_.begin(), units_.end(), [&](const auto& u) { return u->kind() == model; });
  if (unit == units_.end()) {
    return Error::Harness("the durability tracker did not record for " +
                          std::string(NameOf(model)));
  }
  if (!(*unit)->Rewrites()) return std::vector<std::string>{};
  if (!journal().empty()) ReadJournal();
  durability::Tree now;
  if (Status s = sandbox_.Snapshot(now); !s) return s.error();
  durability::Flat before = durability::Flatten(now);
  durability::Flat target = durability::Flatten((*unit)->Survivors(sandbox_, now, seed));
  if (Status s = durability::Rewrite(sandbox_.work(), target); !s) return s.error();
  return durability::Describe(before, target, (*unit)->wording());
}

}  // namespace killpoint
