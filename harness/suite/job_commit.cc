#include "suite/job_commit.h"

#include <stdio.h>
#include <sys/stat.h>

#include <map>
#include <mutex>

#include "proc/process.h"
#include "util/absolute_path.h"
#include "util/atomic_file.h"
#include "util/digest.h"
#include "util/shell_quote.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;

std::string Fill(std::string arg, const std::map<std::string, std::string>& vars) {
  for (const auto& [name, value] : vars) {
    std::string token = "{" + name + "}";
    for (size_t at = arg.find(token); at != std::string::npos;
         at = arg.find(token, at + value.size())) {
      arg.replace(at, token.size(), value);
    }
  }
  return arg;
}

// The first line git prints, or "" when it fails (not a checkout, no git at all).
std::string Git(const fs::path& dir, const std::string& args) {
  // GIT_DIR and GIT_WORK_TREE from a calling hook would point git elsewhere than `dir`.
  std::string command = "unset GIT_DIR GIT_WORK_TREE; git -C " + ShellQuote(dir.string()) + " " +
                        args + " 2>/dev/null";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return "";
  std::string out;
  char buf[256];
  while (size_t n = fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  if (::pclose(pipe) != 0) return "";
  return out.substr(0, out.find('\n'));
}

std::string CommitOf(const fs::path& dir) {
  static std::mutex mu;
  static std::map<fs::path, std::string> cache;
  std::lock_guard lock(mu);
  auto it = cache.find(dir);
  if (it != cache.end()) return it->second;
  std::string commit = Git(dir, "rev-parse --verify HEAD");
  if (commit.size() == 40) {
    // Anything printed by a successful status means uncommitted changes to tracked files.
    std::string dirty = Git(dir, "status --porcelain --untracked-files=no");
    if (!dirty.empty()) commit += "-dirty";
  } else {
    commit.clear();
  }
  return cache[dir] = commit;
}

// The file's FNV-1a 64 digest, read once per version of the file (an interpreter is several
// megabytes and every scenario names it): the cache is keyed by size and modification time.
std::string FileDigest(const std::string& file) {
  struct stat st;
  if (::stat(file.c_str(), &st) != 0) return "unreadable";
  std::string key = file + "\n" + std::to_string(st.st_size) + "\n" +
                    std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
  static std::mutex mu;
  static std::map<std::string, std::string> cache;
  std::lock_guard lock(mu);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  auto bytes = ReadFile(file);
  return cache[key] = bytes ? Fnv1a64Hex(bytes.value()) : "unreadable";
}

}  // namespace

std::vector<fs::path> JobFolders(const Scenario& s, const fs::path& bindir) {
  std::error_code ec;
  fs::path scenario_dir = fs::absolute(s.file, ec).parent_path();
  std::map<std::string, std::string> vars = {{"bindir", bindir.string()},
                                             {"scenario_dir", scenario_dir.string()}};
  std::vector<fs::path> out;
  for (size_t i = 0; i < s.job.command.size(); ++i) {
    fs::path p = Fill(s.job.command[i], vars);
    bool program = i == 0 && p.has_parent_path();
    if (program || (i > 0 && fs::is_regular_file(p, ec)))
      out.push_back(fs::absolute(p, ec).parent_path());
  }
  out.push_back(scenario_dir);
  return out;
}

std::map<std::string, std::string> JobFileDigests(const Scenario& s, const fs::path& bindir) {
  std::error_code ec;
  fs::path scenario_dir = fs::absolute(s.file, ec).parent_path();
  std::map<std::string, std::string> vars = {{"bindir", bindir.string()},
                                             {"scenario_dir", scenario_dir.string()}};
  std::map<std::string, std::string> out;
  for (const auto* command : {&s.job.command, &s.job.setup}) {
    for (size_t i = 0; i < command->size(); ++i) {
      fs::path p = Fill((*command)[i], vars);
      if (i == 0 && !p.has_parent_path()) p = SearchPath(p.string());
      if (p.empty() || !fs::is_regular_file(p, ec)) continue;
      std::string file = AbsolutePath(p).string();
      if (!out.count(file)) out[file] = FileDigest(file);
    }
  }
  return out;
}

std::string JobCommit(const Scenario& s, const fs::path& bindir) {
  for (const fs::path& dir : JobFolders(s, bindir)) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    if (std::string commit = CommitOf(dir); !commit.empty()) return commit;
  }
  return "";
}

}  // namespace killpoint
