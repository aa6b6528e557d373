#include "publish/durable_save.h"

#include <killpoint/failpoint.h>

#include <string_view>

#include "publish/posix_file.h"

namespace killpoint::publish {
namespace {

// Creates path, writes bytes in two halves, fsyncs and closes it.
Status WriteInTwoHalves(const std::string& path, const std::string& bytes) {
  Result<WritableFile> file = WritableFile::Create(path);
  if (!file.ok()) return file.status();
  std::string_view all(bytes);
  std::size_t half = all.size() / 2;
  if (Status s = file.value().Append(all.substr(0, half)); !s.ok()) return s;
  killpoint::failpoint("mid_write");
  if (Status s = file.value().Append(all.substr(half)); !s.ok()) return s;
  killpoint::failpoint("before_fsync");
  if (Status s = file.value().Sync(); !s.ok()) return s;
  return file.value().Close();
}

Status SaveViaRename(const std::string& path, const std::string& bytes, bool sync_directory) {
  std::string tmp = path + ".tmp";
  if (Status s = WriteInTwoHalves(tmp, bytes); !s.ok()) return s;
  killpoint::failpoint("before_rename");
  if (Status s = RenameFile(tmp, path); !s.ok()) return s;
  killpoint::failpoint("after_rename");
  return sync_directory ? SyncParentDirectory(path) : Status::Ok();
}

}  // namespace

std::optional<SaveMode> ParseSaveMode(const std::string& text) {
  if (text == "atomic") return SaveMode::kAtomic;
  if (text == "atomic-no-dirsync") return SaveMode::kAtomicNoDirsync;
  if (text == "in-place") return SaveMode::kInPlace;
  return std::nullopt;
}

Status SaveFile(const std::string& path, const std::string& bytes, SaveMode mode) {
  killpoint::failpoint("before_write");
  switch (mode) {
    case SaveMode::kAtomic:
      return SaveViaRename(path, bytes, /*sync_directory=*/true);
    case SaveMode::kAtomicNoDirsync:
      return SaveViaRename(path, bytes, /*sync_directory=*/false);
    case SaveMode::kInPlace:
      return WriteInTwoHalves(path, bytes);
  }
  return Status::Retryable("unknown save mode");
}

}  // namespace killpoint::publish
