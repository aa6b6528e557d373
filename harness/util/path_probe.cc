#include "util/path_probe.h"

namespace killpoint {

Result<bool> Present(const std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::file_status st = std::filesystem::symlink_status(path, ec);
  if (st.type() == std::filesystem::file_type::not_found) return false;
  if (ec) return Error::BadInput("cannot look at " + path.string() + ": " + ec.message());
  return true;
}

}  // namespace killpoint
