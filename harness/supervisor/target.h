// The job's side of a notification: what the supervisor reads of the process that made a call
// (its memory, descriptors, cwd, umask) and how it acts in its place. Each reader returns
// nothing when the process is gone or the value cannot be had; the caller then lets the call
// run as it is (SECCOMP_USER_NOTIF_FLAG_CONTINUE).
#pragma once

#include <linux/seccomp.h>
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "supervisor/fd.h"
#include "supervisor/tasks.h"

namespace killpoint::supervisor {

// One notified call: the thread that made it and the listener to answer on. Its readers of
// /proc go through the supervisor's entry for the thread (tasks.h), checked for this call.
class Target {
 public:
  Target(int listener, const seccomp_notif& req, Tasks& tasks)
      : listener_(listener), req_(req), tasks_(tasks) {}

  pid_t tid() const { return static_cast<pid_t>(req_.pid); }
  // The process (thread group) of the calling thread, as the protocol's pid (its thread id when
  // it cannot be had).
  pid_t Tgid() const;
  uint64_t arg(int i) const { return req_.data.args[i]; }
  int nr() const { return req_.data.nr; }

  // What /proc says the descriptor is open on ("pipe:[12]" for a pipe).
  std::optional<std::string> FdPath(int fd) const;
  // The absolute, lexically normalized path of `path` taken relative to `dirfd` (AT_FDCWD: the
  // cwd), as the shim computes it.
  std::optional<std::string> Resolve(int dirfd, const std::string& path) const;
  // A NUL-terminated string of the job's memory, at most 4095 bytes.
  std::optional<std::string> ReadString(uint64_t addr) const;
  // `len` bytes of the job's memory.
  bool Read(uint64_t addr, void* out, size_t len) const;
  bool Write(uint64_t addr, const void* in, size_t len) const;
  // A duplicate of the job's descriptor (the same open file: offset, O_APPEND, flags).
  Fd Dup(int fd) const;
  // `dirfd` as a directory the supervisor can pass to an *at call for the job's relative path.
  Fd Dir(int dirfd) const;
  mode_t Umask() const;
  // Still the call the supervisor received (the thread did not die and its id was not reused):
  // checked after reading the job's memory, before acting on what was read.
  bool Valid() const;
  // The file that the job's mapping at `addr` is a view of, from /proc/TID/maps.
  std::optional<std::string> MappedFile(uint64_t addr) const;

  // Answers: let the call run; return `value` (>= 0) or fail with `err`; install `fd` in the job
  // as the call's result (an open done by the supervisor). Each may be called once.
  void Continue() const;
  void Return(int64_t value) const;
  void Fail(int err) const;
  void ReturnFd(int fd, bool cloexec) const;

 private:
  void Respond(int64_t val, int err, uint32_t flags) const;
  // The caller's entry in `tasks_` (tasks.h), checked for this notification: a lookup through
  // it succeeded since the notification was received, or it was opened for it. nullptr when
  // the thread is gone.
  const Task* Caller() const;
  // `op(proc)` on the caller's /proc/TID descriptor; a kept entry that fails it, not checked yet
  // for this notification, may be a dead thread's with the same number: once more on a new one.
  template <typename T, typename Op>
  std::optional<T> ThroughProc(Op op) const;
  Task* Reopen() const;

  int listener_;
  seccomp_notif req_;
  Tasks& tasks_;
  mutable Task* task_ = nullptr;
  mutable bool checked_ = false;  // task_ is the caller's (see Caller)
};

}  // namespace killpoint::supervisor
