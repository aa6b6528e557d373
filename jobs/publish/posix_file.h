// Thin wrappers over the POSIX file calls kp-publish needs. They retry EINTR and short
// writes, and fail with StatusCode::kRetryable and a message naming the call, the path and
// strerror(errno). No failpoints here: durable_save.cc places them between these calls.
#ifndef KILLPOINT_JOBS_PUBLISH_POSIX_FILE_H_
#define KILLPOINT_JOBS_PUBLISH_POSIX_FILE_H_

#include <optional>
#include <string>
#include <string_view>

#include "publish/status.h"

namespace killpoint::publish {

// A file open for writing. Closes itself on destruction if Close() was not called.
class WritableFile {
 public:
  // open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644).
  static Result<WritableFile> Create(const std::string& path);

  WritableFile(WritableFile&& other) noexcept;
  WritableFile& operator=(WritableFile&&) = delete;
  WritableFile(const WritableFile&) = delete;
  ~WritableFile();

  Status Append(std::string_view bytes);  // write() until all of bytes is written.
  Status Sync();                          // fsync().
  Status Close();                         // close(); the object is then unusable.

 private:
  WritableFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}

  std::string path_;
  int fd_;  // -1 once closed or moved from.
};

// rename(from, to).
Status RenameFile(const std::string& from, const std::string& to);

// Opens the directory that holds path and fsyncs it, so that a create or rename in it survives
// a power loss.
Status SyncParentDirectory(const std::string& path);

// The whole content of path, or nullopt when it does not exist.
Result<std::optional<std::string>> ReadFileIfExists(const std::string& path);

}  // namespace killpoint::publish

#endif  // KILLPOINT_JOBS_PUBLISH_POSIX_FILE_H_
