#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "proc/stop_token.h"

namespace killpoint {

int StopToken::signal() const { return source_ == nullptr ? 0 : source_->signal_.load(); }

int StopToken::fd() const { return source_ == nullptr ? -1 : source_->pipe_[0]; }

StopSource::~StopSource() {
  for (int fd : pipe_) {
    if (fd >= 0) ::close(fd);
  }
}

bool StopSource::OpenPipe() {
  if (pipe_[0] >= 0) return true;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) return false;
  pipe_[0] = fds[0];
  pipe_[1] = fds[1];
  if (signal_.load() != 0) Wake();  // stopped already: readable at once
  return true;
}

bool StopSource::RequestStop(int signal) {
  int expected = 0;
  if (!signal_.compare_exchange_strong(expected, signal)) return false;
  Wake();
  return true;
}

void StopSource::Wake() const {
  if (pipe_[1] < 0) return;
  int saved = errno;  // a handler must not change errno under the interrupted code
  char byte = 1;
  while (::write(pipe_[1], &byte, 1) < 0 && errno == EINTR) {
  }
  errno = saved;
}

void StopSource::Reset() {
  char buf[64];
  if (pipe_[0] >= 0) {
    while (::read(pipe_[0], buf, sizeof buf) > 0) {
    }
  }
  signal_.store(0);
}

}  // namespace killpoint
