// Paths and crash point names, by the shim's rules (docs/syscall-shim.md, "Crash points and
// their names"), so that a point has the same name under either backend.
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <vector>

#include "supervisor/supervisor.h"

namespace killpoint::supervisor {
namespace {

constexpr size_t kNameMax = 4039;  // the shim's KP_NAME_MAX - 1: the protocol's line fits

bool NameCharOk(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == ':' || c == '/' || c == '-';
}

void AppendSanitized(std::string& out, std::string_view s) {
  for (unsigned char c : s) out += NameCharOk(c) ? static_cast<char>(c) : '_';
}

std::string Normalized(const std::string& path) {
  std::optional<std::string> n = Normalize(path);
  return n ? *n : path;
}

}  // namespace

std::optional<std::string> Normalize(std::string_view path) {
  if (path.empty() || path[0] != '/') return std::nullopt;
  std::vector<std::string_view> parts;
  size_t i = 0;
  while (i < path.size()) {
    while (i < path.size() && path[i] == '/') ++i;
    size_t end = path.find('/', i);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(i, end - i);
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    i = end;
  }
  std::string out;
  for (std::string_view p : parts) {
    out += '/';
    out += p;
  }
  return out.empty() ? "/" : out;
}

std::optional<std::string> Relpath(const Config& config, std::string_view abs) {
  for (const std::string* root : {&config.workdir, &config.workdir_real}) {
    if (abs == *root) return ".";
    if (abs.size() > root->size() && abs.substr(0, root->size()) == *root &&
        (abs[root->size()] == '/' || *root == "/")) {
      return std::string(abs.substr(*root == "/" ? 1 : root->size() + 1));
    }
  }
  return std::nullopt;
}

std::string PointName(std::string_view op, std::string_view a, std::string_view b) {
  std::string name(op);
  name += ':';
  AppendSanitized(name, a);
  if (!b.empty()) {
    name += ':';
    AppendSanitized(name, b);
  }
  if (name.size() > kNameMax) name.resize(kNameMax);
  return name;
}

Config ReadConfig() {
  Config c;
  const char* ctl = std::getenv("KILLPOINT_CTL");
  const char* workdir = std::getenv("KILLPOINT_WORKDIR");
  if (ctl == nullptr || *ctl == '\0' || workdir == nullptr || *workdir == '\0') return c;
  c.ctl = ctl;
  std::string joined = workdir;
  if (joined[0] != '/') {
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd) == nullptr) return c;
    joined = std::string(cwd) + "/" + joined;
  }
  c.workdir = Normalized(joined);
  char real[PATH_MAX];
  c.workdir_real = realpath(c.workdir.c_str(), real) != nullptr ? std::string(real) : c.workdir;
  if (const char* armed = std::getenv("KILLPOINT_ARMED"); armed != nullptr) {
    c.one_way = true;
    c.armed = armed;
    std::string_view ops =
        std::getenv("KILLPOINT_WAIT_OPS") ? std::getenv("KILLPOINT_WAIT_OPS") : "";
    while (!ops.empty()) {
      size_t comma = ops.find(',');
      std::string_view op = ops.substr(0, comma);
      if (!op.empty()) c.wait_ops.emplace_back(op);
      if (comma == std::string_view::npos) break;
      ops.remove_prefix(comma + 1);
    }
  }
  const char* skip = std::getenv("KILLPOINT_SKIP_FSYNC");
  c.skip_sync = skip != nullptr && std::string_view(skip) == "1";
  if (const char* shadow = std::getenv("KILLPOINT_SHADOW"); shadow != nullptr) c.shadow = shadow;
  c.active = true;
  return c;
}

}  // namespace killpoint::supervisor
