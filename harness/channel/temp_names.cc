#include "channel/temp_names.h"

#include "plan/crash_point.h"

namespace killpoint {

std::string TempNames::Alias(const std::string& path, bool one_way) const {
  if (auto it = alias_.find(path); it != alias_.end()) return it->second;
  if (auto it = ended_.find(path); one_way && it != ended_.end()) return it->second;
  return path;
}

void TempNames::End(const std::string& path) {
  auto it = alias_.find(path);
  if (it == alias_.end()) return;
  ended_[path] = it->second;
  alias_.erase(it);
}

void TempNames::Clear() {
  past_.insert(ended_.begin(), ended_.end());
  past_.insert(alias_.begin(), alias_.end());
  alias_.clear();
  ended_.clear();
  created_ = 0;
}

std::string TempNames::Known(const std::string& path) const {
  for (const auto* table : {&alias_, &ended_, &past_}) {
    if (auto it = table->find(path); it != table->end()) return it->second;
  }
  return path;
}

std::string TempNames::Rename(const std::string& point, bool excl, bool one_way) {
  std::string op(SyscallOp(point));
  if (op.empty()) return point;
  std::string path = point.substr(op.size() + 1);
  if (op == "open" && excl && !keep_.count(path)) {
    size_t slash = path.rfind('/');
    std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
    alias_[path] = dir + "<tmp" + std::to_string(++created_) + ">";
    ended_.erase(path);
    return op + ":" + alias_[path];
  }
  if (alias_.empty() && ended_.empty()) return point;
  if (op != "rename") {
    // An unlink of a temporary file's old path once it was renamed away: a cleanup that finds
    // nothing (Go's `defer os.Remove(tmp.Name())`), whose name must recur like the file's.
    std::string name = op + ":" + Alias(path, one_way || op == "unlink");
    if (op == "unlink") End(path);
    return name;
  }
  // "rename:SRC:DST": paths may hold ':', so split where a side is a known temporary file.
  for (const auto* table : {&alias_, &ended_}) {
    if (table == &ended_ && !one_way) break;
    for (const auto& [real, alias] : *table) {
      std::string src, dst;
      if (path.size() > real.size() && path.compare(0, real.size() + 1, real + ":") == 0) {
        src = real;
        dst = path.substr(real.size() + 1);
      } else if (path.size() > real.size() &&
                 path.compare(path.size() - real.size() - 1, std::string::npos, ":" + real) == 0) {
        src = path.substr(0, path.size() - real.size() - 1);
        dst = real;
      } else {
        continue;
      }
      std::string name = "rename:" + Alias(src, one_way) + ":" + Alias(dst, one_way);
      End(src);  // renamed away: the file has a name of its own now
      End(dst);  // replaced by another file
      return name;
    }
  }
  return point;
}

}  // namespace killpoint
