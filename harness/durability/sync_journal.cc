#include "durability/sync_journal.h"

#include <algorithm>
#include <iterator>
#include <sstream>

namespace killpoint::durability {

namespace {
namespace fs = std::filesystem;
}  // namespace

Status SyncJournal::Begin(const fs::path& dir) {
  dir_ = dir;
  read_ = 0;
  data_.clear();
  files_.clear();
  if (dir_.empty()) return Ok();
  std::error_code ec;
  fs::remove_all(dir_, ec);
  if (!fs::create_directories(dir_, ec) || ec) {
    return Error::Harness("cannot make " + dir_.string() + ": " + ec.message());
  }
  return Ok();
}

// Bytes [off, off + len) of the process's data file, as far as they are there, added to `out`:
// only what the lines name is read, never a whole data file.
void SyncJournal::AppendData(int pid, uint64_t off, uint64_t len, std::string& out) {
  auto [it, fresh] = data_.try_emplace(pid);
  if (fresh) it->second.open(dir_ / ("data-" + std::to_string(pid)), std::ios::binary);
  std::ifstream& in = it->second;
  in.clear();
  in.seekg(static_cast<std::streamoff>(off));
  size_t at = out.size();
  out.resize(at + len);
  in.read(out.data() + at, static_cast<std::streamsize>(len));
  out.resize(at + static_cast<size_t>(std::max<std::streamsize>(0, in.gcount())));
}

// Each line: "F <ino> <pid> <off> <len>" (the whole content) or "A <ino> <pid> <off> <len>
// <keep>" (the first <keep> bytes of what <pid> recorded last for <ino>, then the new bytes):
// harness/shim/shadow.h, harness/supervisor/journal.h. No inode number is freed between two
// reads, so a file's last line read gives its content.
std::map<ino_t, std::string> SyncJournal::ReadNew() {
  std::ifstream in(dir_ / "journal", std::ios::binary);
  if (!in) return {};
  in.seekg(static_cast<std::streamoff>(read_));
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  size_t complete = text.rfind('\n');  // a line still being written waits for the next read
  if (complete == std::string::npos) return {};
  read_ += complete + 1;
  std::map<ino_t, std::pair<int, ino_t>> last;
  std::istringstream lines(text.substr(0, complete + 1));
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    char kind = 0;
    unsigned long long ino = 0, off = 0, len = 0, keep = 0;
    int pid = 0;
    if (!(fields >> kind >> ino >> pid >> off >> len) || (kind == 'A' && !(fields >> keep)))
      continue;
    std::string& content = files_[{pid, static_cast<ino_t>(ino)}];
    content.resize(kind == 'A' ? std::min<size_t>(keep, content.size()) : 0);
    AppendData(pid, off, len, content);
    last[static_cast<ino_t>(ino)] = {pid, static_cast<ino_t>(ino)};
  }
  std::map<ino_t, std::string> out;
  for (const auto& [ino, key] : last) out[ino] = files_[key];
  return out;
}

}  // namespace killpoint::durability
