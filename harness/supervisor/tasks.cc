#include "supervisor/tasks.h"

#include <fcntl.h>
#include <poll.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

namespace killpoint::supervisor {
namespace {

// The thread group of the thread whose /proc/TID directory is `proc` ("Tgid:" of its status,
// the fourth line); 0 when it cannot be read.
pid_t ReadTgid(int proc) {
  Fd status(openat(proc, "status", O_RDONLY | O_CLOEXEC));
  char buf[1024];
  ssize_t n = status.ok() ? read(status.get(), buf, sizeof buf - 1) : -1;
  if (n <= 0) return 0;
  buf[n] = '\0';
  const char* at = strstr(buf, "\nTgid:");
  return at == nullptr ? 0 : static_cast<pid_t>(std::atoi(at + 6));
}

// A pidfd whose process has not ended (poll says so once it has).
bool Running(const Fd& pidfd) {
  pollfd p{pidfd.get(), POLLIN, 0};
  return pidfd.ok() && poll(&p, 1, 0) == 0;
}

}  // namespace

Task* Tasks::Find(pid_t tid) {
  auto it = threads_.find(tid);
  return it == threads_.end() ? nullptr : &it->second;
}

// A pidfd kept for `tgid` by another thread of the process, or a new one. A kept one that still
// runs is this process's: a process's number is not given to another before it has ended.
std::shared_ptr<const Fd> Tasks::ProcessFd(pid_t tgid) {
  auto it = processes_.find(tgid);
  if (it != processes_.end()) {
    if (std::shared_ptr<const Fd> kept = it->second.lock(); kept && Running(*kept)) return kept;
  }
  auto fd = std::make_shared<const Fd>(PidfdOpen(tgid));
  processes_[tgid] = fd;
  return fd;
}

Task* Tasks::Open(pid_t tid) {
  threads_.erase(tid);
  if (threads_.size() >= kMaxThreads) {
    threads_.clear();
    processes_.clear();
  }
  Task t;
  std::string dir = "/proc/" + std::to_string(tid);
  t.proc = Fd(open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!t.proc.ok()) return nullptr;
  // pidfd_open fails for a thread that does not lead its group (EINVAL, ENOENT since Linux
  // 6.9): one call says whether tid is its process's number and opens its pidfd when it is.
  std::shared_ptr<const Fd> own;
  if (auto kept = processes_.find(tid); kept != processes_.end()) own = kept->second.lock();
  if (!own || !Running(*own)) {
    own.reset();
    int fd = PidfdOpen(tid);
    if (fd >= 0) {
      own = std::make_shared<const Fd>(fd);
      processes_[tid] = own;
    } else if (errno == ESRCH) {
      return nullptr;  // gone
    }
  }
  if (own) {
    t.tgid = tid;
    t.pidfd = std::move(own);
  } else {
    t.tgid = ReadTgid(t.proc.get());
    if (t.tgid <= 0) return nullptr;
    t.pidfd = ProcessFd(t.tgid);
  }
  return &(threads_[tid] = std::move(t));
}

}  // namespace killpoint::supervisor
