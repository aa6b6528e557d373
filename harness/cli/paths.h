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

}  // namespace killpoint
