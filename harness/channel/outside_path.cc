#include "channel/outside_path.h"

#include <algorithm>
#include <cstdlib>

namespace killpoint {
namespace {

namespace fs = std::filesystem;

// The part of `path` below `folder` ("" for the folder itself), or nothing when it is not in it.
std::optional<std::string> Below(const std::string& path, const fs::path& folder) {
  std::string f = folder.lexically_normal().string();
  while (f.size() > 1 && f.back() == '/') f.pop_back();
  if (f.empty()) return std::nullopt;
  if (f == "/") return path.substr(1);
  if (path.compare(0, f.size(), f) != 0) return std::nullopt;
  if (path.size() == f.size()) return std::string();
  if (path[f.size()] != '/') return std::nullopt;
  return path.substr(f.size() + 1);
}

}  // namespace

std::vector<fs::path> TempFolders(const std::string& job_tmpdir) {
  std::vector<fs::path> out = {"/tmp", "/var/tmp", "/dev/shm"};
  const char* env = std::getenv("TMPDIR");
  for (const std::string& dir : {std::string(env != nullptr ? env : ""), job_tmpdir}) {
    if (dir.empty() || dir.front() != '/') continue;
    fs::path p = fs::path(dir).lexically_normal();
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  }
  return out;
}

bool IsBytecodeCache(const std::string& path) {
  if (path.size() >= 4 && path.compare(path.size() - 4, 4, ".pyc") == 0) return true;
  for (size_t at = path.find("__pycache__"); at != std::string::npos;
       at = path.find("__pycache__", at + 1)) {
    size_t end = at + 11;
    if (at > 0 && path[at - 1] == '/' && (end == path.size() || path[end] == '/')) return true;
  }
  return false;
}

std::optional<OutsideWrite> ClassifyOutside(const std::string& path,
                                            const std::set<std::string>& ops,
                                            const OutsidePlaces& places) {
  if (IsBytecodeCache(path)) return std::nullopt;
  OutsideWrite w{path, outside_kind::kElsewhere, {ops.begin(), ops.end()}};
  for (const fs::path& root : places.sandbox_roots) {
    if (auto rest = Below(path, root)) {
      w.path = "$KILLPOINT_WORKDIR/.." + (rest->empty() ? "" : "/" + *rest);
      w.kind = outside_kind::kTrial;
      return w;
    }
  }
  for (const fs::path& tmp : places.temp_folders) {
    if (Below(path, tmp)) {
      w.kind = outside_kind::kTemp;
      return w;
    }
  }
  return w;
}

}  // namespace killpoint
