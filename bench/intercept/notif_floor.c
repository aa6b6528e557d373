/* notif_floor: the smallest seccomp user-notification supervisor that could be a crash-testing
 * harness's interception backend, for scripts/bench-intercept.sh (docs/interception-backends.md).
 *
 *   notif_floor [--mode continue|readlink|emulate] [--kill SYSCALL:N] [--log FILE]
 *               [--stats FILE] -- CMD [ARGS...]
 *
 * Forks. The child joins a process group of its own, sets PR_SET_NO_NEW_PRIVS, installs a
 * filter that sends the file-system calls a crash-testing tool needs to this supervisor
 * (SECCOMP_RET_USER_NOTIF) and lets everything else through, hands the filter's listener to
 * the parent over a socketpair (SCM_RIGHTS), and execs CMD. Every descendant inherits the
 * filter. The parent answers each notification:
 *
 *   continue  SECCOMP_USER_NOTIF_FLAG_CONTINUE to everything: one notification round trip, the
 *             floor of this backend.
 *   readlink  what deciding "is this call in the sandbox" costs: the fd's path from
 *             /proc/PID/fd/N, or the path argument read with process_vm_readv (and the cwd or
 *             dirfd it is relative to), then SECCOMP_IOCTL_NOTIF_ID_VALID (the task is still
 *             the one that asked, so what was read is its own), then CONTINUE.
 *   emulate   performs write, pwrite64, fsync and fdatasync itself: the job's fd through
 *             pidfd_getfd (no cache of the dup, see below), the buffer through
 *             process_vm_readv, the call on the dup, and answers with its result. The rest:
 *             CONTINUE.
 *
 * --kill SYSCALL:N  SIGKILLs the job's process group at the Nth notification of SYSCALL (a
 *                   name from the table below, e.g. write:5), while that call is held: the
 *                   call never happens. Shows that this backend can crash a job before an
 *                   operation.
 * --log FILE        one line per notification: "seq pid syscall args [path]".
 * --stats FILE      at exit: "notifications N" and one "SYSCALL N" line per syscall seen.
 *
 * Exits with the child's status (128+signal when it was killed). The supervisor is a child
 * subreaper: it waits for every descendant of the job, not only the first.
 *
 * Why no cache of the pidfd_getfd dups: a dup cached per (pid, fd) is stale as soon as the job
 * closes or replaces fd N without this supervisor seeing it: dup2/dup3 onto N, close_range, an
 * exec closing a close-on-exec N, another thread or a CLONE_FILES child sharing the table.
 * close is notified, the others are not; notifying them all would cost more notifications than
 * the cache saves (pidfd_getfd and close are two system calls of the supervisor's, no round
 * trip). So each emulated call takes its own dup. A pidfd per pid is cached: a pid reused by a
 * new process leaves the cached pidfd pointing to the dead one, whose pidfd_getfd fails with
 * ESRCH, and the cache then opens a new one.
 *
 * x86-64 only: the filter kills a process that makes a system call of any other architecture
 * (i386's int 0x80, the x32 ABI), which it could not read.
 *
 * Build: gcc -O2 -Wall -o notif_floor notif_floor.c (Linux 5.9 or later: pidfd_getfd,
 * SECCOMP_USER_NOTIF_FLAG_CONTINUE; 5.19 for SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, used when
 * the kernel has it). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#if !defined(__x86_64__)
#error "notif_floor: x86-64 only"
#endif

#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

/* The calls a crash-testing tool needs to see. open, openat and creat are notified only when
 * they can change a file (below); openat2 always (its flags are behind a pointer, which a
 * filter cannot read). */
static const struct {
  int nr;
  const char* name;
} kNotified[] = {
    {SYS_write, "write"},
    {SYS_pwrite64, "pwrite64"},
    {SYS_writev, "writev"},
    {SYS_pwritev, "pwritev"},
    {SYS_pwritev2, "pwritev2"},
    {SYS_fsync, "fsync"},
    {SYS_fdatasync, "fdatasync"},
    {SYS_rename, "rename"},
    {SYS_renameat, "renameat"},
    {SYS_renameat2, "renameat2"},
    {SYS_unlink, "unlink"},
    {SYS_unlinkat, "unlinkat"},
    {SYS_mkdir, "mkdir"},
    {SYS_mkdirat, "mkdirat"},
    {SYS_ftruncate, "ftruncate"},
    {SYS_truncate, "truncate"},
    {SYS_close, "close"},
    {SYS_fallocate, "fallocate"},
    {SYS_msync, "msync"},
    {SYS_sync, "sync"},
    {SYS_syncfs, "syncfs"},
    {SYS_sync_file_range, "sync_file_range"},
    {SYS_creat, "creat"},
    {SYS_openat2, "openat2"},
    {SYS_linkat, "linkat"},
    {SYS_copy_file_range, "copy_file_range"},
    {SYS_io_uring_setup, "io_uring_setup"},
};
enum { kNotifiedCount = sizeof kNotified / sizeof kNotified[0] };
/* Flags that make an open a change: a write mode, a creation or a truncation. O_TMPFILE needs a
 * write mode, so it is caught too. */
static const uint32_t kChangingOpen = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC;

static const char* SyscallName(int nr) {
  if (nr == SYS_open) return "open";
  if (nr == SYS_openat) return "openat";
  for (int i = 0; i < kNotifiedCount; ++i)
    if (kNotified[i].nr == nr) return kNotified[i].name;
  return "?";
}

/* ---- The filter ---------------------------------------------------------------------------- */

enum { kMaxInsns = 128 };
static struct sock_filter prog[kMaxInsns];
static int prog_len;
/* Jumps to a label placed later: the instruction's index and which of its targets. */
enum Label { kAllow, kNotify, kKill, kOpenFlags, kOpenatFlags, kLabels };
static int label_at[kLabels];
static struct {
  int insn;
  enum Label label;
  int which; /* 0: jt, 1: jf */
} fixups[kMaxInsns];
static int fixup_count;

static void Emit(struct sock_filter f) {
  if (prog_len == kMaxInsns) abort();
  prog[prog_len++] = f;
}
/* if (A == k) goto label; else fall through. */
static void JeqTo(uint32_t k, enum Label label) {
  fixups[fixup_count++] = (typeof(fixups[0])){prog_len, label, 0};
  Emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, 0, 0));
}
static void Place(enum Label label) { label_at[label] = prog_len; }

static void BuildFilter(void) {
  const uint32_t args_lo = offsetof(struct seccomp_data, args); /* low 32 bits, little-endian */
  Emit((struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
  Emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0));
  Emit((struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
  Emit((struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
  /* The x32 ABI shares AUDIT_ARCH_X86_64 and sets bit 30 of the number. */
  Emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1));
  Emit((struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
  for (int i = 0; i < kNotifiedCount; ++i) JeqTo((uint32_t)kNotified[i].nr, kNotify);
  JeqTo(SYS_open, kOpenFlags);
  JeqTo(SYS_openat, kOpenatFlags);
  Place(kAllow);
  Emit((struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  Place(kNotify);
  Emit((struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF));
  Place(kKill);
  Emit((struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
  /* open(path, flags, mode): flags are args[1]; openat(dirfd, path, flags, mode): args[2]. */
  Place(kOpenFlags);
  Emit((struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, args_lo + 1 * 8));
  Emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, kChangingOpen, 0, 1));
  Emit((struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF));
  Emit((struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  Place(kOpenatFlags);
  Emit((struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, args_lo + 2 * 8));
  Emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, kChangingOpen, 0, 1));
  Emit((struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF));
  Emit((struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  for (int i = 0; i < fixup_count; ++i) {
    int offset = label_at[fixups[i].label] - (fixups[i].insn + 1);
    if (offset < 0 || offset > 255) abort();
    if (fixups[i].which == 0)
      prog[fixups[i].insn].jt = (uint8_t)offset;
    else
      prog[fixups[i].insn].jf = (uint8_t)offset;
  }
}

/* ---- The child: filter, hand-over, exec ---------------------------------------------------- */

static int SendFd(int sock, int fd) {
  char byte = 'L';
  struct iovec iov = {&byte, 1};
  union {
    struct cmsghdr h;
    char space[CMSG_SPACE(sizeof(int))];
  } control;
  memset(&control, 0, sizeof control);
  struct msghdr msg = {.msg_iov = &iov,
                       .msg_iovlen = 1,
                       .msg_control = control.space,
                       .msg_controllen = sizeof control.space};
  struct cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(c), &fd, sizeof fd);
  ssize_t n;
  do n = sendmsg(sock, &msg, MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  return n == 1 ? 0 : -1;
}

static int RecvFd(int sock) {
  char byte;
  struct iovec iov = {&byte, 1};
  union {
    struct cmsghdr h;
    char space[CMSG_SPACE(sizeof(int))];
  } control;
  struct msghdr msg = {.msg_iov = &iov,
                       .msg_iovlen = 1,
                       .msg_control = control.space,
                       .msg_controllen = sizeof control.space};
  ssize_t n;
  do n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
  while (n < 0 && errno == EINTR);
  if (n != 1) return -1;
  struct cmsghdr* c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_type != SCM_RIGHTS) return -1;
  int fd;
  memcpy(&fd, CMSG_DATA(c), sizeof fd);
  return fd;
}

/* Runs in the child. Nothing after the seccomp call may make a notified call before the parent
 * holds the listener, or the child would wait for a supervisor that is waiting for it: sendmsg
 * is not notified, the listener and the socket are close-on-exec (closed by the exec, not by a
 * close call), and a failure is reported by _exit codes, not by writing. After the hand-over
 * the parent serves, so a failed exec can report on stderr. */
static void Child(int sock, char** argv) {
  if (setpgid(0, 0) != 0) _exit(120);
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) _exit(121);
  BuildFilter();
  struct sock_fprog fprog = {.len = (unsigned short)prog_len, .filter = prog};
  long listener =
      syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
              SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, &fprog);
  if (listener < 0 && errno == EINVAL) /* before Linux 5.19 */
    listener =
        syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &fprog);
  if (listener < 0)
    _exit(errno == EBUSY ? 123 : 122); /* EBUSY: a listener is already in the chain */
  if (SendFd(sock, (int)listener) != 0) _exit(124);
  execvp(argv[0], argv);
  fprintf(stderr, "notif_floor: exec %s: %s\n", argv[0], strerror(errno));
  _exit(127);
}

/* ---- The parent: the supervisor ------------------------------------------------------------ */

enum Mode { kContinue, kReadlink, kEmulate };
static enum Mode mode = kContinue;
static int kill_nr = -1;
static long kill_at = 0;
static FILE* log_file;
static long counts[512];
static long total;
static long emulated, fallbacks; /* emulate mode: calls done here, calls left to the kernel */
static int fallback_errno;       /* why the last fallback happened */

/* The waiter thread reaps the job's processes (the supervisor is their subreaper) and, when none
 * is left, interrupts the main thread's blocking NOTIF_RECV with SIGUSR1 until it has seen
 * `done`: a signal sent between the main thread's check of `done` and its ioctl would be lost,
 * hence the repeats. */
static atomic_int done, acked;
static int child_status;
static pid_t child_pid;
static pthread_t main_thread;

static void* Waiter(void* unused) {
  (void)unused;
  for (;;) {
    int st;
    pid_t p = waitpid(-1, &st, 0);
    if (p == child_pid) child_status = st;
    if (p < 0 && errno == ECHILD) break;
  }
  atomic_store(&done, 1);
  while (!atomic_load(&acked)) {
    pthread_kill(main_thread, SIGUSR1);
    usleep(2000);
  }
  return NULL;
}
static void OnUsr1(int sig) { (void)sig; }

/* Reads a NUL-terminated string from the task's memory. */
static int ReadString(pid_t pid, uint64_t addr, char* out, size_t size) {
  size_t have = 0;
  while (have < size - 1) {
    /* Never read across a page boundary in one call: the next page may not be mapped. */
    size_t page_left = 4096 - ((addr + have) & 4095);
    size_t want = size - 1 - have < page_left ? size - 1 - have : page_left;
    struct iovec local = {out + have, want}, remote = {(void*)(uintptr_t)(addr + have), want};
    ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
    if (n <= 0) return -1;
    void* nul = memchr(out + have, '\0', (size_t)n);
    have += (size_t)n;
    if (nul) return 0;
  }
  out[size - 1] = '\0';
  return 0;
}

static int FdPath(pid_t pid, long fd, char* out, size_t size) {
  char link[64];
  snprintf(link, sizeof link, "/proc/%d/fd/%ld", pid, fd);
  ssize_t n = readlink(link, out, size - 1);
  if (n < 0) return -1;
  out[n] = '\0';
  return 0;
}

/* The path a path-taking call names, made absolute against the cwd or its dirfd. */
static int CallPath(const struct seccomp_notif* req, char* out, size_t size) {
  int path_arg = -1, dirfd_arg = -1;
  switch (req->data.nr) {
    case SYS_open:
    case SYS_creat:
    case SYS_rename:
    case SYS_unlink:
    case SYS_mkdir:
    case SYS_truncate:
      path_arg = 0;
      break;
    case SYS_openat:
    case SYS_openat2:
    case SYS_renameat:
    case SYS_renameat2:
    case SYS_unlinkat:
    case SYS_mkdirat:
    case SYS_linkat:
      path_arg = 1, dirfd_arg = 0;
      break;
    default:
      return -1;
  }
  char rel[PATH_MAX];
  if (ReadString(req->pid, req->data.args[path_arg], rel, sizeof rel) != 0) return -1;
  if (rel[0] == '/') {
    snprintf(out, size, "%s", rel);
    return 0;
  }
  char base[PATH_MAX];
  int dirfd = dirfd_arg >= 0 ? (int)req->data.args[dirfd_arg] : AT_FDCWD;
  if (dirfd == AT_FDCWD) {
    char link[64];
    snprintf(link, sizeof link, "/proc/%d/cwd", req->pid);
    ssize_t n = readlink(link, base, sizeof base - 1);
    if (n < 0) return -1;
    base[n] = '\0';
  } else if (FdPath(req->pid, dirfd, base, sizeof base) != 0) {
    return -1;
  }
  size_t b = strlen(base), r = strlen(rel);
  if (b + 1 + r + 1 > size) return -1;
  memcpy(out, base, b);
  out[b] = '/';
  memcpy(out + b + 1, rel, r + 1);
  return 0;
}

static int TakesFd(int nr) {
  switch (nr) {
    case SYS_write:
    case SYS_pwrite64:
    case SYS_writev:
    case SYS_pwritev:
    case SYS_pwritev2:
    case SYS_fsync:
    case SYS_fdatasync:
    case SYS_ftruncate:
    case SYS_close:
    case SYS_fallocate:
    case SYS_syncfs:
    case SYS_sync_file_range:
      return 1;
    default:
      return 0;
  }
}

/* A pidfd per pid, see the head comment. Small open-addressed table; a miss opens one. */
enum { kPidfdSlots = 256 };
static struct {
  pid_t pid;
  int fd;
} pidfds[kPidfdSlots];

static int PidfdOpen(pid_t pid) {
  int fd = (int)syscall(SYS_pidfd_open, pid, 0);
  if (fd < 0 && errno == EINVAL)
    fd = (int)syscall(SYS_pidfd_open, pid, PIDFD_THREAD); /* a thread */
  return fd;
}

static int PidfdOf(pid_t pid, int fresh) {
  int slot = (int)((unsigned)pid % kPidfdSlots);
  if (pidfds[slot].pid == pid && pidfds[slot].fd >= 0 && !fresh) return pidfds[slot].fd;
  if (pidfds[slot].pid != 0 && pidfds[slot].fd >= 0) close(pidfds[slot].fd);
  pidfds[slot].pid = pid;
  pidfds[slot].fd = PidfdOpen(pid);
  return pidfds[slot].fd;
}

static int DupOf(pid_t pid, int fd) {
  int pidfd = PidfdOf(pid, 0);
  int local = pidfd >= 0 ? (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0) : -1;
  if (local < 0 && (pidfd < 0 || errno == ESRCH)) { /* a pid reused since it was cached */
    pidfd = PidfdOf(pid, 1);
    local = pidfd >= 0 ? (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0) : -1;
  }
  return local;
}

static int IdValid(int listener, uint64_t id) {
  return ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

static char* buffer;
static size_t buffer_size;
enum { kMaxEmulatedWrite = 16 << 20 }; /* larger writes are cut short (a short write is legal) */

/* Performs the call for the job. Returns 1 with *val / *error set when it did, 0 to let the
 * kernel run it (CONTINUE). */
static int Emulate(int listener, const struct seccomp_notif* req, int64_t* val, int32_t* error) {
  int nr = req->data.nr;
  if (nr != SYS_write && nr != SYS_pwrite64 && nr != SYS_fsync && nr != SYS_fdatasync) return 0;
  int local = DupOf(req->pid, (int)req->data.args[0]);
  if (local < 0) {
    /* EBADF: the job's fd is not open, which the call itself would have said. Anything else
     * (EPERM without the right to ptrace the job): the kernel does it. */
    if (errno == EBADF) {
      *val = 0, *error = -EBADF;
      return 1;
    }
    ++fallbacks, fallback_errno = errno;
    return 0;
  }
  int handled = 1;
  ssize_t r = 0;
  if (nr == SYS_write || nr == SYS_pwrite64) {
    size_t count = (size_t)req->data.args[2];
    if (count > kMaxEmulatedWrite) count = kMaxEmulatedWrite;
    if (count > buffer_size) {
      free(buffer);
      buffer_size = count < 65536 ? 65536 : count;
      buffer = malloc(buffer_size);
      if (!buffer) abort();
    }
    struct iovec local_iov = {buffer, count}, remote = {(void*)(uintptr_t)req->data.args[1], count};
    ssize_t got = count ? process_vm_readv(req->pid, &local_iov, 1, &remote, 1, 0) : 0;
    if (got < 0) {
      handled = 0; /* unreadable buffer: the kernel's write returns its EFAULT */
    } else if (!IdValid(listener, req->id)) {
      handled = 0; /* the task died: nobody to answer, nothing to write */
    } else {
      r = nr == SYS_write ? write(local, buffer, (size_t)got)
                          : pwrite(local, buffer, (size_t)got, (off_t)req->data.args[3]);
    }
  } else if (!IdValid(listener, req->id)) {
    handled = 0;
  } else {
    r = nr == SYS_fsync ? fsync(local) : fdatasync(local);
  }
  if (!handled) ++fallbacks, fallback_errno = 0;
  if (handled) {
    ++emulated;
    *val = r < 0 ? 0 : r;
    *error = r < 0 ? -errno : 0;
  }
  close(local);
  return handled;
}

static void LogNotification(const struct seccomp_notif* req) {
  char path[PATH_MAX + 8] = "";
  if (TakesFd(req->data.nr)) {
    char p[PATH_MAX];
    if (FdPath(req->pid, (long)req->data.args[0], p, sizeof p) == 0)
      snprintf(path, sizeof path, " %s", p);
  } else {
    char p[PATH_MAX];
    if (CallPath(req, p, sizeof p) == 0) snprintf(path, sizeof path, " %s", p);
  }
  fprintf(log_file, "%ld pid=%d %s(%#llx, %#llx, %#llx)%s\n", total, req->pid,
          SyscallName(req->data.nr), (unsigned long long)req->data.args[0],
          (unsigned long long)req->data.args[1], (unsigned long long)req->data.args[2], path);
  fflush(log_file);
}

static int Supervise(int listener) {
  struct seccomp_notif_sizes sizes;
  if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0) return -1;
  /* The kernel's structures may be larger than this program's headers say. */
  size_t req_size = sizes.seccomp_notif > sizeof(struct seccomp_notif)
                        ? sizes.seccomp_notif
                        : sizeof(struct seccomp_notif);
  size_t resp_size = sizes.seccomp_notif_resp > sizeof(struct seccomp_notif_resp)
                         ? sizes.seccomp_notif_resp
                         : sizeof(struct seccomp_notif_resp);
  struct seccomp_notif* req = malloc(req_size);
  struct seccomp_notif_resp* resp = malloc(resp_size);
  if (!req || !resp) return -1;
  char path[PATH_MAX];
  for (;;) {
    if (atomic_load(&done)) break;
    memset(req, 0, req_size);
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, req) != 0) {
      if (errno == EINTR || errno == ENOENT)
        continue; /* a signal, or the task died before we got it */
      perror("notif_floor: SECCOMP_IOCTL_NOTIF_RECV");
      return -1;
    }
    ++total;
    if (req->data.nr >= 0 && req->data.nr < 512) ++counts[req->data.nr];
    if (log_file) LogNotification(req);
    if (req->data.nr == kill_nr && counts[kill_nr] == kill_at) {
      /* Held: the job's call has not happened. Kill the whole job; its notification is then
       * withdrawn, so there is nothing to answer. */
      kill(-child_pid, SIGKILL);
      kill(req->pid, SIGKILL); /* in case it left the group (setsid) */
      if (log_file) fprintf(log_file, "killed the job at %s #%ld\n", SyscallName(kill_nr), kill_at);
      continue;
    }
    memset(resp, 0, resp_size);
    resp->id = req->id;
    resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    if (mode == kReadlink) {
      int got = TakesFd(req->data.nr) ? FdPath(req->pid, (long)req->data.args[0], path, sizeof path)
                                      : CallPath(req, path, sizeof path);
      (void)got; /* a harness would compare the path with its sandbox here */
      if (!IdValid(listener, req->id)) continue; /* what was read may be another task's */
    } else if (mode == kEmulate) {
      int64_t val;
      int32_t error;
      if (Emulate(listener, req, &val, &error)) {
        resp->flags = 0;
        resp->val = val;
        resp->error = error;
      }
    }
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, resp) != 0 && errno != ENOENT) {
      perror("notif_floor: SECCOMP_IOCTL_NOTIF_SEND");
    }
  }
  atomic_store(&acked, 1);
  return 0;
}

static int Usage(void) {
  fprintf(stderr,
          "usage: notif_floor [--mode continue|readlink|emulate] [--kill SYSCALL:N] [--log FILE]\n"
          "                   [--stats FILE] -- CMD [ARGS...]\n");
  return 2;
}

int main(int argc, char** argv) {
  const char* stats_path = NULL;
  int i = 1;
  for (; i < argc; ++i) {
    if (!strcmp(argv[i], "--")) {
      ++i;
      break;
    } else if (!strcmp(argv[i], "--mode") && i + 1 < argc) {
      const char* m = argv[++i];
      if (!strcmp(m, "continue"))
        mode = kContinue;
      else if (!strcmp(m, "readlink"))
        mode = kReadlink;
      else if (!strcmp(m, "emulate"))
        mode = kEmulate;
      else
        return Usage();
    } else if (!strcmp(argv[i], "--kill") && i + 1 < argc) {
      char name[64];
      if (sscanf(argv[++i], "%63[^:]:%ld", name, &kill_at) != 2 || kill_at < 1) return Usage();
      for (int k = 0; k < kNotifiedCount; ++k)
        if (!strcmp(kNotified[k].name, name)) kill_nr = kNotified[k].nr;
      if (!strcmp(name, "open")) kill_nr = SYS_open;
      if (!strcmp(name, "openat")) kill_nr = SYS_openat;
      if (kill_nr < 0) {
        fprintf(stderr, "notif_floor: --kill: no notified syscall '%s'\n", name);
        return 2;
      }
    } else if (!strcmp(argv[i], "--log") && i + 1 < argc) {
      log_file = fopen(argv[++i], "we");
      if (!log_file) return perror("notif_floor: --log"), 2;
    } else if (!strcmp(argv[i], "--stats") && i + 1 < argc) {
      stats_path = argv[++i];
    } else {
      return Usage();
    }
  }
  if (i >= argc) return Usage();

  /* Orphaned descendants come to us, so the job ends when all of its processes have. */
  prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  struct sigaction sa = {.sa_handler = OnUsr1}; /* no SA_RESTART: NOTIF_RECV returns EINTR */
  sigaction(SIGUSR1, &sa, NULL);
  main_thread = pthread_self();
  int sp[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) != 0) return perror("socketpair"), 1;
  child_pid = fork();
  if (child_pid < 0) return perror("fork"), 1;
  if (child_pid == 0) {
    close(sp[0]);
    Child(sp[1], argv + i);
  }
  close(sp[1]);
  int listener = RecvFd(sp[0]);
  close(sp[0]);
  pthread_t waiter;
  if (pthread_create(&waiter, NULL, Waiter, NULL) != 0) return perror("pthread_create"), 1;
  if (listener < 0) {
    /* The child failed before the hand-over; its exit code says where. */
    atomic_store(&acked, 1);
    pthread_join(waiter, NULL);
    int code = WIFEXITED(child_status) ? WEXITSTATUS(child_status) : 1;
    fprintf(
        stderr, "notif_floor: the child could not install the filter (exit %d%s)\n", code,
        code == 123 ? ": EBUSY, a seccomp listener is already in this process's filter chain" : "");
    return 1;
  }
  int rc = Supervise(listener);
  pthread_join(waiter, NULL);
  close(listener);
  if (stats_path) {
    FILE* f = fopen(stats_path, "we");
    if (f) {
      fprintf(f, "notifications %ld\n", total);
      if (mode == kEmulate)
        fprintf(f, "emulated %ld\nleft_to_kernel %ld%s%s\n", emulated, fallbacks,
                fallback_errno ? " last_error " : "",
                fallback_errno ? strerror(fallback_errno) : "");
      for (int nr = 0; nr < 512; ++nr)
        if (counts[nr]) fprintf(f, "%s %ld\n", SyscallName(nr), counts[nr]);
      fclose(f);
    }
  }
  if (rc != 0) return 1;
  if (WIFSIGNALED(child_status)) return 128 + WTERMSIG(child_status);
  return WEXITSTATUS(child_status);
}
