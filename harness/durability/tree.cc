#include "durability/tree.h"

#include <algorithm>
#include <fstream>
#include <vector>

namespace killpoint::durability {

namespace {
namespace fs = std::filesystem;
}  // namespace

std::string Join(const std::string& dir, const std::string& name) {
  return dir == "." ? name : dir + "/" + name;
}

std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary | std::ios::ate);
  if (!in) return {};
  std::string out(static_cast<size_t>(std::max<std::streamoff>(0, in.tellg())), '\0');
  in.seekg(0);
  in.read(out.data(), static_cast<std::streamsize>(out.size()));
  out.resize(static_cast<size_t>(std::max<std::streamsize>(0, in.gcount())));
  return out;
}

void Sandbox::Reset(const fs::path& work) {
  work_ = work;
  gens_.clear();
}

FileId Sandbox::Id(ino_t ino) const {
  auto gen = gens_.find(ino);
  return {ino, gen == gens_.end() ? 0 : gen->second};
}

bool Sandbox::StatPath(const std::string& relpath, struct stat& st) const {
  if (relpath.empty() || relpath[0] == '/') return false;  // outside the sandbox
  return ::lstat(PathOf(relpath).c_str(), &st) == 0;
}

Result<Entries> Sandbox::List(const fs::path& dir, std::map<FileId, struct stat>* stats) const {
  Entries out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    struct stat st;
    if (::lstat(e.path().c_str(), &st) != 0) continue;  // gone meanwhile
    if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) continue;
    FileId id = Id(st.st_ino);
    Entry entry{id.ino, id.gen, S_ISDIR(st.st_mode)};
    out[e.path().filename().string()] = entry;
    if (stats && S_ISREG(st.st_mode)) (*stats)[entry.id()] = st;
  }
  if (ec) return Error::Harness("cannot list " + dir.string() + ": " + ec.message());
  return out;
}

Status Sandbox::Snapshot(Tree& tree) const {
  std::vector<std::string> pending = {"."};
  while (!pending.empty()) {
    std::string dir = pending.back();
    pending.pop_back();
    auto entries = List(PathOf(dir));
    if (!entries) return entries.error();
    for (const auto& [name, entry] : entries.value()) {
      std::string path = Join(dir, name);
      if (entry.dir)
        pending.push_back(path);
      else
        tree.files[entry.id()] = Slurp(work_ / path);
    }
    tree.dirs[dir] = std::move(entries.value());
  }
  return Ok();
}

Status Sandbox::Survey(Namespace& ns) const {
  std::vector<std::string> pending = {"."};
  while (!pending.empty()) {
    std::string dir = pending.back();
    pending.pop_back();
    std::map<FileId, struct stat> stats;
    auto entries = List(PathOf(dir), &stats);
    if (!entries) return entries.error();
    for (const auto& [name, entry] : entries.value()) {
      if (entry.dir) pending.push_back(Join(dir, name));
    }
    for (const auto& [id, st] : stats) ns.files[id] = {st.st_size, st.st_mtim, st.st_ctim};
    ns.dirs[dir] = std::move(entries.value());
  }
  return Ok();
}

}  // namespace killpoint::durability
