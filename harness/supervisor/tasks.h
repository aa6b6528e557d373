// What the supervisor keeps of each thread of the job that made a notified call, so that the
// next call of the same thread costs no lookup: its thread group (the protocol's pid), a
// descriptor of its /proc/TID directory, and a pidfd of its process (shared by its threads).
//
// A thread's number can be given to another thread once the first is reaped, which the
// supervisor does not hear of. The /proc/TID descriptor is what makes a kept entry safe: it is
// bound to the thread it was opened on, not to its number, so a lookup through it ("fd/3",
// "cwd") fails once that thread is gone and never reaches a later thread with the same number.
// A notification may use an entry only after one such lookup succeeded after the notification
// was received (Target does that): the thread was then alive, so it held its number when the
// call was made, so it is the caller, and its thread group and process are the caller's. A new
// entry is checked with SECCOMP_IOCTL_NOTIF_ID_VALID once it is opened instead.
//
// Entries of threads that are gone are dropped when the table is full (the supervisor hears of
// no exit), all at once: kept descriptors of a dead process hold no resource of the job (not its
// number, not its files). An exec keeps the process and its pidfd; a thread other than the
// leader that execs takes the leader's number, and its old entry's lookups fail from then on.
//
// Not thread-safe: the supervisor's one loop uses it.
#pragma once

#include <sys/types.h>

#include <memory>
#include <unordered_map>

#include "supervisor/fd.h"

namespace killpoint::supervisor {

struct Task {
  pid_t tgid = 0;
  Fd proc;                          // /proc/TID, O_PATH: lookups fail once the thread is gone
  std::shared_ptr<const Fd> pidfd;  // of the process (tgid); invalid when pidfd_open failed
};

class Tasks {
 public:
  // The kept entry of thread `tid`, nullptr when there is none. Not checked: see above.
  Task* Find(pid_t tid);
  // A new entry for `tid`, replacing any kept one; nullptr when the thread is gone or /proc
  // cannot be read. The caller checks that the notification is still valid before using it.
  Task* Open(pid_t tid);
  void Drop(pid_t tid) { threads_.erase(tid); }
  size_t size() const { return threads_.size(); }

  // At most this many threads are kept; the table is emptied when one more is opened.
  static constexpr size_t kMaxThreads = 256;

 private:
  std::shared_ptr<const Fd> ProcessFd(pid_t tgid);

  std::unordered_map<pid_t, Task> threads_;
  // Each process's pidfd while a kept thread of it holds it.
  std::unordered_map<pid_t, std::weak_ptr<const Fd>> processes_;
};

}  // namespace killpoint::supervisor
