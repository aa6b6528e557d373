#include "run/durability.h"

#include <sys/stat.h>

#include <fstream>
#include <set>

#include "plan/rng.h"
#include "util/atomic_file.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;
constexpr size_t kSector = 512;

std::string Join(const std::string& dir, const std::string& name) {
  return dir == "." ? name : dir + "/" + name;
}

std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

Result<DurabilityTracker::Entries> List(const fs::path& dir) {
  DurabilityTracker::Entries out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    struct stat st;
    if (::lstat(e.path().c_str(), &st) != 0) continue;  // gone meanwhile
    if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) continue;
    out[e.path().filename().string()] = {st.st_ino, S_ISDIR(st.st_mode)};
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
    for (size_t i = at; i < std::min(size, at + kSector); ++i) out[i] = i < from.size() ? from[i] : '\0';
  }
  return out;
}

struct Flat {
  std::map<std::string, std::string> files;  // relpath -> content
  std::set<std::string> dirs;                // relpaths of directories
};

void Flatten(const std::map<std::string, DurabilityTracker::Entries>& dirs,
             const std::map<ino_t, std::string>& contents, const std::string& dir, Flat& out) {
  auto it = dirs.find(dir);
  if (it == dirs.end()) return;
  for (const auto& [name, entry] : it->second) {
    std::string path = Join(dir, name);
    if (entry.dir) {
      out.dirs.insert(path);
      Flatten(dirs, contents, path, out);
    } else {
      auto c = contents.find(entry.ino);
      out.files[path] = c == contents.end() ? "" : c->second;
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

std::vector<std::string> Describe(const Flat& before, const Flat& after) {
  std::vector<std::string> out;
  for (const auto& [path, content] : before.files) {
    auto it = after.files.find(path);
    if (it == after.files.end()) {
      out.push_back(path + ": its name was never made durable (no fsync of its directory), gone");
    } else if (it->second != content) {
      out.push_back(path + ": " + std::to_string(content.size()) + " bytes before the crash, " +
                    std::to_string(it->second.size()) + " after (un-synced writes lost)");
    }
  }
  for (const auto& [path, content] : after.files) {
    if (!before.files.count(path)) {
      out.push_back(path + ": back with " + std::to_string(content.size()) +
                    " bytes (its removal or replacement was never made durable)");
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
    auto entries = List(dir == "." ? work_ : work_ / dir);
    if (!entries) return entries.error();
    for (const auto& [name, entry] : entries.value()) {
      std::string path = Join(dir, name);
      if (entry.dir) pending.push_back(path);
      else tree.files[entry.ino] = Slurp(work_ / path);
    }
    tree.dirs[dir] = std::move(entries.value());
  }
  return Ok();
}

Status DurabilityTracker::Begin(const fs::path& work) {
  work_ = work;
  start_ = {};
  synced_dirs_.clear();
  synced_files_.clear();
  return Snapshot(start_);
}

void DurabilityTracker::OnSync(const std::string& relpath) {
  fs::path p = relpath == "." ? work_ : work_ / relpath;
  struct stat st;
  if (::stat(p.c_str(), &st) != 0) return;
  if (S_ISDIR(st.st_mode)) {
    if (auto entries = List(p)) synced_dirs_[relpath] = std::move(entries.value());
  } else if (S_ISREG(st.st_mode)) {
    synced_files_[st.st_ino] = Slurp(p);
  }
}

// A directory's durable entries: as last fsync'ed, else as at the start; a directory that
// did not exist at the start and was never fsync'ed is empty.
void DurabilityTracker::BuildDurable(const std::string& dir, Tree& out) const {
  auto synced = synced_dirs_.find(dir);
  auto started = start_.dirs.find(dir);
  Entries entries = synced != synced_dirs_.end() ? synced->second
                    : started != start_.dirs.end() ? started->second : Entries{};
  for (const auto& [name, entry] : entries) {
    if (entry.dir) BuildDurable(Join(dir, name), out);
  }
  out.dirs[dir] = std::move(entries);
}

DurabilityTracker::Tree DurabilityTracker::Durable() const {
  Tree t;
  BuildDurable(".", t);
  t.files = start_.files;
  for (const auto& [ino, content] : synced_files_) t.files[ino] = content;
  return t;
}

Result<std::vector<std::string>> DurabilityTracker::Apply(const std::string& model, uint64_t seed) {
  if (model == kModelProcess) return std::vector<std::string>{};
  Tree now;
  if (Status s = Snapshot(now); !s) return s.error();
  Flat before, durable;
  Flatten(now.dirs, now.files, ".", before);
  Tree d = Durable();
  Flatten(d.dirs, d.files, ".", durable);
  Flat target = durable;
  if (model == kModelTorn) {
    PlanRng rng(seed);
    for (const auto& [path, content] : before.files) {
      auto it = durable.files.find(path);
      if (it == durable.files.end()) {
        if (rng.Chance(0.5)) target.files[path] = Tear("", content, rng);  // the create survived
      } else if (it->second != content) {
        target.files[path] = Tear(it->second, content, rng);
      }
    }
    for (const auto& [path, content] : durable.files) {
      if (!before.files.count(path) && rng.Chance(0.5)) target.files.erase(path);  // the unlink survived
    }
    for (const auto& dir : before.dirs) target.dirs.insert(dir);
    for (const auto& [path, content] : target.files) {
      for (fs::path p = fs::path(path).parent_path(); !p.empty(); p = p.parent_path()) target.dirs.insert(p.string());
    }
  }
  if (Status s = Rewrite(work_, target); !s) return s.error();
  return Describe(before, target);
}

}  // namespace killpoint
