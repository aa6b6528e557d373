// Where killpoint finds what it ships beside itself.
#pragma once

#include <filesystem>

namespace killpoint {

// The folder of the running killpoint binary: the reference jobs and the shim are built there.
inline std::filesystem::path DefaultBindir() {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::current_path() : self.parent_path();
}

// README.md and docs/ of an installed killpoint (PREFIX/lib/killpoint/killpoint):
// PREFIX/share/doc/killpoint, when it is there; empty for a killpoint run from its build tree.
inline std::filesystem::path InstalledDocsDir() {
  std::filesystem::path docs = (DefaultBindir() / "../../share/doc/killpoint").lexically_normal();
  std::error_code ec;
  return std::filesystem::is_directory(docs / "docs", ec) ? docs : std::filesystem::path();
}

}  // namespace killpoint
