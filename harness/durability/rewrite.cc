#include "durability/rewrite.h"

#include <fstream>

namespace killpoint::durability {
namespace {

namespace fs = std::filesystem;

void FlattenDir(const Tree& tree, const std::string& dir, Flat& out) {
  auto it = tree.dirs.find(dir);
  if (it == tree.dirs.end()) return;
  for (const auto& [name, entry] : it->second) {
    std::string path = Join(dir, name);
    if (entry.dir) {
      out.dirs.insert(path);
      FlattenDir(tree, path, out);
    } else {
      auto c = tree.files.find(entry.id());
      out.files[path] = c == tree.files.end() ? "" : c->second;
      out.ids[path] = entry.id();
    }
  }
}

std::string UnsyncedWritesLost(const Flat&, const Flat&, const std::string&) {
  return "un-synced writes lost";
}

}  // namespace

Flat Flatten(const Tree& tree) {
  Flat out;
  FlattenDir(tree, ".", out);
  return out;
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

const Wording& PosixWording() {
  static const Wording kPosix{": its name was never made durable (no fsync of its directory), gone",
                              "made durable)", UnsyncedWritesLost};
  return kPosix;
}

std::vector<std::string> Describe(const Flat& before, const Flat& after, const Wording& wording) {
  std::vector<std::string> out;
  for (const auto& [path, content] : before.files) {
    auto it = after.files.find(path);
    if (it == after.files.end()) {
      out.push_back(path + wording.gone);
    } else if (it->second != content) {
      out.push_back(path + ": " + std::to_string(content.size()) + " bytes before the crash, " +
                    std::to_string(it->second.size()) + " after (" +
                    wording.why_changed(before, after, path) + ")");
    }
  }
  for (const auto& [path, content] : after.files) {
    if (!before.files.count(path)) {
      out.push_back(path + ": back with " + std::to_string(content.size()) +
                    " bytes (its removal or replacement was never " + wording.back);
    }
  }
  return out;
}

}  // namespace killpoint::durability
