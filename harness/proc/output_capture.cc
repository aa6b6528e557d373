#include "proc/output_capture.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace killpoint {
namespace {

void CloseFd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

void WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // a full disk loses captured output, never the trial
    data += n;
    size -= static_cast<size_t>(n);
  }
}

}  // namespace

Result<OutputCapture> OutputCapture::Open(const std::filesystem::path& file, int64_t max_bytes,
                                          const std::string& stream_name) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    return Error::Harness(std::string("pipe2: ") + std::strerror(errno));
  ::fcntl(fds[0], F_SETFL, O_NONBLOCK);
  int file_fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (file_fd < 0) {
    int e = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    return Error::Harness("cannot create " + file.string() + ": " + std::strerror(e));
  }
  return OutputCapture(fds[0], fds[1], file_fd, max_bytes, stream_name);
}

OutputCapture::OutputCapture(int read_fd, int write_fd, int file_fd, int64_t max_bytes,
                             std::string name)
    : read_fd_(read_fd),
      write_fd_(write_fd),
      file_fd_(file_fd),
      max_bytes_(max_bytes),
      name_(std::move(name)) {}

OutputCapture::OutputCapture(OutputCapture&& o) noexcept
    : read_fd_(std::exchange(o.read_fd_, -1)),
      write_fd_(std::exchange(o.write_fd_, -1)),
      file_fd_(std::exchange(o.file_fd_, -1)),
      max_bytes_(o.max_bytes_),
      kept_(o.kept_),
      dropped_(o.dropped_),
      name_(std::move(o.name_)) {}

OutputCapture::~OutputCapture() {
  CloseFd(read_fd_);
  CloseFd(write_fd_);
  CloseFd(file_fd_);
}

void OutputCapture::CloseWriteEnd() { CloseFd(write_fd_); }

void OutputCapture::CloseRead() { CloseFd(read_fd_); }

void OutputCapture::Drain() {
  char buf[65536];
  while (read_fd_ >= 0) {
    ssize_t n = ::read(read_fd_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    if (n <= 0) {
      CloseRead();
      return;
    }
    int64_t keep = std::min<int64_t>(n, max_bytes_ - kept_);
    if (keep > 0) WriteAll(file_fd_, buf, static_cast<size_t>(keep));
    kept_ += keep;
    dropped_ += n - keep;
  }
}

void OutputCapture::Finish(const std::string& note) {
  CloseWriteEnd();
  Drain();
  if (dropped_ > 0 && file_fd_ >= 0) {
    std::string line = "\n[killpoint: " + name_ + " truncated: kept the first " +
                       std::to_string(kept_) + " bytes, dropped " + std::to_string(dropped_) +
                       "]\n";
    WriteAll(file_fd_, line.data(), line.size());
  }
  if (!note.empty() && file_fd_ >= 0) {
    std::string line = "\n[killpoint: " + note + "]\n";
    WriteAll(file_fd_, line.data(), line.size());
  }
  CloseRead();
  CloseFd(file_fd_);
}

}  // namespace killpoint
