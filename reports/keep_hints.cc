#include "reports/keep_hints.h"

#include <algorithm>
#include <fstream>

namespace killpoint {
namespace {

namespace fs = std::filesystem;

bool IsSqliteDatabase(const fs::path& file) {
  static constexpr char kMagic[] = "SQLite format 3";  // with its NUL: 16 bytes
  char head[sizeof(kMagic)] = {};
  std::ifstream in(file, std::ios::binary);
  return in.read(head, sizeof(head)) && std::equal(head, head + sizeof(head), kMagic);
}

// The SQLite databases under `work` (two levels deep at most), sorted.
std::vector<fs::path> Databases(const fs::path& work) {
  std::vector<fs::path> out;
  std::error_code ec;
  fs::recursive_directory_iterator it(work, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it.depth() > 1) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file(ec) && IsSqliteDatabase(it->path())) out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool NonEmptyDirectory(const fs::path& dir) {
  std::error_code ec;
  return fs::is_directory(dir, ec) && !fs::is_empty(dir, ec);
}

}  // namespace

std::vector<std::string> KeepHints(const fs::path& box, const std::string& state_file) {
  fs::path work = box / "work";
  std::vector<std::string> out = {"ls -la " + work.string()};
  if (NonEmptyDirectory(box / "logs")) out.push_back("ls " + (box / "logs").string());
  std::vector<fs::path> dbs = Databases(work);
  for (size_t i = 0; i < dbs.size() && i < kMaxDatabaseHints; ++i)
    out.push_back("sqlite3 " + dbs[i].string() + " .dump");
  if (dbs.size() > kMaxDatabaseHints) {
    out.push_back("# and " + std::to_string(dbs.size() - kMaxDatabaseHints) +
                  " more SQLite databases under " + work.string());
  }
  std::error_code ec;
  if (!state_file.empty() && fs::is_regular_file(work / state_file, ec))
    out.push_back("cat " + (work / state_file).string());
  return out;
}

}  // namespace killpoint
