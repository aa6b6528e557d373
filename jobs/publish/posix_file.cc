#include "publish/posix_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

namespace killpoint::publish {
namespace {

// "cannot write /w/state.json: No space left on device", with errno read before anything
// else can change it.
Status Failed(const char* verb, const std::string& path, int err = errno) {
  return Status::Retryable(std::string(verb) + " " + path + ": " + std::strerror(err));
}

int OpenRetryingEintr(const std::string& path, int flags, mode_t mode = 0) {
  int fd;
  do {
    fd = ::open(path.c_str(), flags | O_CLOEXEC, mode);
  } while (fd < 0 && errno == EINTR);
  return fd;
}

}  // namespace

Result<WritableFile> WritableFile::Create(const std::string& path) {
  int fd = OpenRetryingEintr(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
  if (fd < 0) return Failed("cannot create", path);
  return WritableFile(path, fd);
}

WritableFile::WritableFile(WritableFile&& other) noexcept
    : path_(std::move(other.path_)), fd_(std::exchange(other.fd_, -1)) {}

WritableFile::~WritableFile() {
  if (fd_ >= 0) ::close(fd_);
}

Status WritableFile::Append(std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Failed("cannot write", path_);
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return Status::Ok();
}

Status WritableFile::Sync() {
  int rc;
  do {
    rc = ::fsync(fd_);
  } while (rc != 0 && errno == EINTR);
  return rc == 0 ? Status::Ok() : Failed("cannot fsync", path_);
}

Status WritableFile::Close() {
  // Linux closes the descriptor even when close() fails, so it is never retried.
  int rc = ::close(std::exchange(fd_, -1));
  return rc == 0 ? Status::Ok() : Failed("cannot close", path_);
}

Status RenameFile(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) == 0) return Status::Ok();
  int err = errno;
  return Failed("cannot rename", from + " to " + to, err);
}

Status SyncParentDirectory(const std::string& path) {
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  const std::string dir = parent.empty() ? std::string(".") : parent.string();
  int fd = OpenRetryingEintr(dir, O_RDONLY | O_DIRECTORY);
  if (fd < 0) return Failed("cannot open directory", dir);
  int rc;
  do {
    rc = ::fsync(fd);
  } while (rc != 0 && errno == EINTR);
  Status status = rc == 0 ? Status::Ok() : Failed("cannot fsync directory", dir);
  ::close(fd);
  return status;
}

Result<std::optional<std::string>> ReadFileIfExists(const std::string& path) {
  int fd = OpenRetryingEintr(path, O_RDONLY);
  if (fd < 0 && errno == ENOENT) return std::optional<std::string>();
  if (fd < 0) return Failed("cannot open", path);
  std::string content;
  char chunk[8192];
  ssize_t n;
  while ((n = ::read(fd, chunk, sizeof chunk)) != 0) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      Status status = Failed("cannot read", path);
      ::close(fd);
      return status;
    }
    content.append(chunk, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return std::optional<std::string>(std::move(content));
}

}  // namespace killpoint::publish
