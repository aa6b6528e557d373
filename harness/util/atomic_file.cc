#include "util/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace killpoint {
namespace {

std::string Describe(const std::string& what, const std::filesystem::path& path) {
  return what + " " + path.string() + ": " + std::strerror(errno);
}

Status WriteAll(int fd, std::string_view content, const std::filesystem::path& path) {
  while (!content.empty()) {
    ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error::Harness(Describe("cannot write", path));
    content.remove_prefix(static_cast<size_t>(n));
  }
  return Ok();
}

}  // namespace

Status SyncDirectory(const std::filesystem::path& dir) {
  int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Error::Harness(Describe("cannot open directory", dir));
  int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) return Error::Harness(Describe("cannot fsync directory", dir));
  return Ok();
}

Status WriteFileAtomically(const std::filesystem::path& path, std::string_view content) {
  std::filesystem::path tmp = path;
  tmp += ".tmp." + std::to_string(::getpid());
  // Created exclusively, as mkstemp does: a crash-testing shim names such a file by its
  // creation order (docs/syscall-shim.md), so the name's pid does not make its crash points
  // differ from run to run. One left by a killed writer of the same pid goes first.
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0 && errno == EEXIST && ::unlink(tmp.c_str()) == 0) {
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  }
  if (fd < 0) return Error::Harness(Describe("cannot create", tmp));
  Status written = WriteAll(fd, content, tmp);
  if (written && ::fsync(fd) != 0) written = Error::Harness(Describe("cannot fsync", tmp));
  ::close(fd);
  if (written && ::rename(tmp.c_str(), path.c_str()) != 0) {
    written = Error::Harness(Describe("cannot rename into", path));
  }
  if (!written) {
    ::unlink(tmp.c_str());
    return written;
  }
  return SyncDirectory(path.parent_path());
}

Status AppendDurably(const std::filesystem::path& path, std::string_view content) {
  // Whether this append creates the file: then its name is durable only once the directory is
  // synced too (killpoint's own dogfood scenario lost whole journals under power loss without).
  bool created = false;
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) {
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
    created = fd >= 0;
    if (fd < 0 && errno == EEXIST) fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  }
  if (fd < 0) return Error::Harness(Describe("cannot open", path));
  Status written = WriteAll(fd, content, path);
  if (written && ::fdatasync(fd) != 0) written = Error::Harness(Describe("cannot fdatasync", path));
  ::close(fd);
  if (written && created) return SyncDirectory(path.parent_path());
  return written;
}

Result<std::string> ReadFile(const std::filesystem::path& path) {
  // O_NONBLOCK: a FIFO (a job may leave one where its state was) opens at once rather than
  // waiting for a writer, and is refused below; a regular file ignores the flag.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return Error::BadInput(Describe("cannot read", path));
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    std::string what = S_ISDIR(st.st_mode)                          ? "a directory, "
                       : S_ISFIFO(st.st_mode)                       ? "a FIFO, "
                       : S_ISSOCK(st.st_mode)                       ? "a socket, "
                       : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device, "
                                                                    : "";
    ::close(fd);
    return Error::BadInput("cannot read " + path.string() + ": it is " + what +
                           "not a regular file");
  }
  std::string out;
  char chunk[64 * 1024];
  for (;;) {
    ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      std::string error = Describe("cannot read", path);
      ::close(fd);
      return Error::BadInput(error);
    }
    if (n == 0) break;
    out.append(chunk, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

}  // namespace killpoint
