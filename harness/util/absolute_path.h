// Paths in the commands killpoint prints (replay lines): absolute, so that a command works
// from any directory, not only from the one the run started in.
#pragma once

#include <filesystem>
#include <string>

namespace killpoint {

// `p` made absolute against the current directory and normalized ("a/./b/../c" -> "/cwd/a/c");
// `p` itself when the current directory cannot be read.
inline std::filesystem::path AbsolutePath(const std::filesystem::path& p) {
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(p, ec);
  return ec ? p : abs.lexically_normal();
}

}  // namespace killpoint
