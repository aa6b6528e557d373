// The interceptor's durability journal (KILLPOINT_SHADOW): the shim or the supervisor records
// what each sync of a regular file makes durable itself, without waiting
// (harness/shim/shadow.h, harness/supervisor/journal.h). The tracker reads it before each
// operation it still hears while the job is held, and at Apply, for a model that takes it.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>

#include "util/result.h"

namespace killpoint::durability {

class SyncJournal {
 public:
  // A journal in `dir`, made afresh; empty: none.
  Status Begin(const std::filesystem::path& dir);
  const std::filesystem::path& dir() const { return dir_; }
  // The lines not read yet: each inode number synced since, with its content at its last sync.
  std::map<ino_t, std::string> ReadNew();

 private:
  void AppendData(int pid, uint64_t off, uint64_t len, std::string& out);

  // Where, how far read, each recorder's data file open (a process of the job under the shim,
  // the supervisor), the content each recorded last of each inode number.
  std::filesystem::path dir_;
  size_t read_ = 0;
  std::map<int, std::ifstream> data_;
  std::map<std::pair<int, ino_t>, std::string> files_;
};

}  // namespace killpoint::durability
