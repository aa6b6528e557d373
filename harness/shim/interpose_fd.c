/* Wrappers of the operations on file descriptors: the write family (with copy_file_range and
 * sendfile, which write to their output fd), ftruncate, fsync,
 * fdatasync and close are crash points on sandbox fds; dup, dup2, dup3, fcntl(F_DUPFD*),
 * close_range and closefrom only keep the fd table right. */
#undef _FORTIFY_SOURCE
#undef _FILE_OFFSET_BITS
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "channel.h"
#include "fd_table.h"
#include "interpose.h"
#include "shadow.h"
#include "shim.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

KP_REAL(write, ssize_t, (int, const void *, size_t))
KP_REAL(pwrite, ssize_t, (int, const void *, size_t, off_t))
KP_REAL(pwrite64, ssize_t, (int, const void *, size_t, off64_t))
KP_REAL(writev, ssize_t, (int, const struct iovec *, int))
KP_REAL(pwritev, ssize_t, (int, const struct iovec *, int, off_t))
KP_REAL(pwritev64, ssize_t, (int, const struct iovec *, int, off64_t))
KP_REAL(pwritev2, ssize_t, (int, const struct iovec *, int, off_t, int))
KP_REAL(pwritev64v2, ssize_t, (int, const struct iovec *, int, off64_t, int))
KP_REAL(copy_file_range, ssize_t, (int, off64_t *, int, off64_t *, size_t, unsigned))
KP_REAL(sendfile, ssize_t, (int, int, off_t *, size_t))
KP_REAL(sendfile64, ssize_t, (int, int, off64_t *, size_t))
KP_REAL(ftruncate, int, (int, off_t))
KP_REAL(ftruncate64, int, (int, off64_t))
KP_REAL(fsync, int, (int))
KP_REAL(fdatasync, int, (int))
KP_REAL(close, int, (int))
KP_REAL(dup, int, (int))
KP_REAL(dup2, int, (int, int))
KP_REAL(dup3, int, (int, int, int))
KP_REAL(fcntl, int, (int, int, ...))
KP_REAL(close_range, int, (unsigned, unsigned, int))
KP_REAL(closefrom, void, (int))

ssize_t kp_real_write(int fd, const void *buf, size_t n) { return kp_next_write()(fd, buf, n); }
int kp_real_close(int fd) { return kp_next_close()(fd); }

/* ---- writes the shim did not see (docs/syscall-shim.md, "Unseen writes") ---- */

static void kp_report_unseen(const char *rel, unsigned long long grown, const char *at) {
  kp_point p;
  kp_point_init(&p);
  kp_point_name(&p, "write", rel, NULL);
  p.is_write = 1;
  p.unseen = at;
  p.bytes = grown;
  kp_point_hit(&p);
  /* AFTER (or PARTIAL, which a harness never sends here): the write is done already. */
  kp_point_done(&p, grown);
}

void kp_unseen_write(int fd, const char *at) {
  char rel[KP_PATH_MAX];
  unsigned long long grown = 0;
  if (kp_own_process() && kp_fd_unseen(fd, rel, sizeof rel, &grown))
    kp_report_unseen(rel, grown, at);
}

void kp_unseen_writes(const char *rel, const char *at) {
  if (!kp_own_process()) return;
  for (int fd = kp_fd_next_writable(-1, rel); fd >= 0; fd = kp_fd_next_writable(fd, rel)) {
    kp_unseen_write(fd, at);
  }
}

/* Arms p as "<op>:<relpath>" when fd is open on a sandbox path, after reporting what changed
 * unseen before, with one fstat for both, left in *st. Returns fd's KP_FD_* flags, or -1 when p is
 * not armed. */
static int kp_fd_point_stat(kp_point *p, const char *op, int fd, struct stat *st) {
  char rel[KP_PATH_MAX], unseen_rel[KP_PATH_MAX];
  int flags = 0;
  unsigned long long grown = 0;
  if (!kp_fd_lookup_stat(fd, rel, sizeof rel, st, &flags) || !kp_own_process()) return -1;
  if (kp_fd_unseen_stat(fd, st, unseen_rel, sizeof unseen_rel, &grown))
    kp_report_unseen(unseen_rel, grown, op);
  kp_point_name(p, op, rel, NULL);
  return flags;
}

static void kp_fd_point_checked(kp_point *p, const char *op, int fd) {
  struct stat st;
  (void)kp_fd_point_stat(p, op, fd, &st);
}

/* ---- the write family ---- */

enum kp_write_kind {
  KP_WRITE,
  KP_PWRITE,
  KP_PWRITE64,
  KP_WRITEV,
  KP_PWRITEV,
  KP_PWRITEV64,
  KP_PWRITEV2,
  KP_PWRITEV64V2
};

typedef struct {
  enum kp_write_kind kind;
  int fd;
  const struct iovec *iov; /* write, pwrite: one iovec around the buffer */
  int iovcnt;
  off64_t off;
  int flags;
} kp_write_call;

/* The call's own function on other buffers (and offset). */
static ssize_t kp_write_real(const kp_write_call *c, const struct iovec *iov, int iovcnt,
                             off64_t off) {
  switch (c->kind) {
    case KP_WRITE:
      return kp_next_write()(c->fd, iov[0].iov_base, iov[0].iov_len);
    case KP_PWRITE:
      return kp_next_pwrite()(c->fd, iov[0].iov_base, iov[0].iov_len, (off_t)off);
    case KP_PWRITE64:
      return kp_next_pwrite64()(c->fd, iov[0].iov_base, iov[0].iov_len, off);
    case KP_WRITEV:
      return kp_next_writev()(c->fd, iov, iovcnt);
    case KP_PWRITEV:
      return kp_next_pwritev()(c->fd, iov, iovcnt, (off_t)off);
    case KP_PWRITEV64:
      return kp_next_pwritev64()(c->fd, iov, iovcnt, off);
    case KP_PWRITEV2:
      return kp_next_pwritev2()(c->fd, iov, iovcnt, (off_t)off, c->flags);
    case KP_PWRITEV64V2:
      return kp_next_pwritev64v2()(c->fd, iov, iovcnt, off, c->flags);
  }
  errno = EINVAL;
  return -1;
}

/* Writes only the first n bytes across the iovecs, in order, one piece at a time. Returns the
 * bytes written, or -1 (errno set) when the first piece failed. */
static ssize_t kp_write_prefix(const kp_write_call *c, unsigned long long n) {
  int positional = c->kind == KP_PWRITE || c->kind == KP_PWRITE64 || c->kind == KP_PWRITEV ||
                   c->kind == KP_PWRITEV64 || c->off != -1;
  unsigned long long done = 0;
  for (int i = 0; i < c->iovcnt && done < n; ++i) {
    const char *base = c->iov[i].iov_base;
    size_t len = c->iov[i].iov_len;
    if (len > n - done) len = (size_t)(n - done);
    for (size_t at = 0; at < len;) {
      struct iovec piece = {(void *)(base + at), len - at};
      ssize_t r = kp_write_real(c, &piece, 1, positional ? c->off + (off64_t)done : c->off);
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) return done > 0 ? (ssize_t)done : -1;
      if (r == 0) return (ssize_t)done;
      at += (size_t)r;
      done += (unsigned long long)r;
    }
  }
  return (ssize_t)done;
}

static ssize_t kp_write_common(const kp_write_call *c) {
  if (!kp_enabled()) return kp_write_real(c, c->iov, c->iovcnt, c->off);
  int err = errno;
  kp_guard_enter();
  kp_point p;
  kp_point_init(&p);
  struct stat before;
  int flags = kp_fd_point_stat(&p, "write", c->fd, &before);
  if (p.armed) {
    p.is_write = 1;
    for (int i = 0; c->iov != NULL && i < c->iovcnt; ++i) p.bytes += c->iov[i].iov_len;
    p.offset = c->off; /* -1 for write and writev, and pwritev2's "at the file position" */
    p.offset_fd = c->fd;
#ifdef RWF_APPEND
    p.append = (c->flags & RWF_APPEND) != 0;
#endif
  }
  kp_point_hit(&p);
  errno = err;
  ssize_t r = p.answer == KP_PARTIAL && p.partial < p.bytes
                  ? kp_write_prefix(c, p.partial)
                  : kp_write_real(c, c->iov, c->iovcnt, c->off);
  err = errno;
  struct stat after;
  if (p.armed && kp_fd_stamp_fd_stat(c->fd, &after)) { /* a seen write: the file's new stamp */
    long long at = c->off != -1             ? (long long)c->off
                   : (flags & KP_FD_APPEND) ? (long long)before.st_size
                                            : -1;
    kp_shadow_wrote(&before, &after, at);
  }
  kp_point_done(&p, r > 0 ? (unsigned long long)r : 0);
  kp_guard_leave();
  errno = err;
  return r;
}

KP_EXPORT ssize_t write(int fd, const void *buf, size_t n) {
  if (!kp_enabled()) return kp_next_write()(fd, buf, n);
  struct iovec one = {(void *)buf, n};
  kp_write_call c = {KP_WRITE, fd, &one, 1, -1, 0};
  return kp_write_common(&c);
}

KP_EXPORT ssize_t pwrite(int fd, const void *buf, size_t n, off_t off) {
  struct iovec one = {(void *)buf, n};
  kp_write_call c = {KP_PWRITE, fd, &one, 1, off, 0};
  return kp_write_common(&c);
}

KP_EXPORT ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off) {
  struct iovec one = {(void *)buf, n};
  kp_write_call c = {KP_PWRITE64, fd, &one, 1, off, 0};
  return kp_write_common(&c);
}

KP_EXPORT ssize_t writev(int fd, const struct iovec *iov, int iovcnt) {
  kp_write_call c = {KP_WRITEV, fd, iov, iovcnt, -1, 0};
  return kp_write_common(&c);
}

KP_EXPORT ssize_t pwritev(int fd, const struct iovec *iov, int iovcnt, off_t off) {
  kp_write_call c = {KP_PWRITEV, fd, iov, iovcnt, off, 0};
  return kp_write_common(&c);
}

KP_EXPORT ssize_t pwritev64(int fd, const struct iovec *iov, int iovcnt, off64_t off) {
  kp_write_call c = {KP_PWRITEV64, fd, iov, iovcnt, off, 0};
  return kp_write_common(&c);
}

KP_EXPORT ssize_t pwritev2(int fd, const struct iovec *iov, int iovcnt, off_t off, int flags) {
  kp_write_call c = {KP_PWRITEV2, fd, iov, iovcnt, off, flags};
  return kp_write_common(&c);
}

KP_EXPORT ssize_t pwritev64v2(int fd, const struct iovec *iov, int iovcnt, off64_t off, int flags) {
  kp_write_call c = {KP_PWRITEV64V2, fd, iov, iovcnt, off, flags};
  return kp_write_common(&c);
}

/* ---- copy_file_range, sendfile: writes whose bytes come from another fd ---- */

enum kp_copy_kind { KP_COPY_FILE_RANGE, KP_SENDFILE, KP_SENDFILE64 };

typedef struct {
  enum kp_copy_kind kind;
  int out_fd;
  int in_fd;
  off64_t *in_off;  /* copy_file_range, sendfile64 */
  off64_t *out_off; /* copy_file_range */
  off_t *sf_off;    /* sendfile */
  unsigned flags;
} kp_copy_call;

static ssize_t kp_copy_real(const kp_copy_call *c, size_t len) {
  switch (c->kind) {
    case KP_COPY_FILE_RANGE:
      return kp_next_copy_file_range()(c->in_fd, c->in_off, c->out_fd, c->out_off, len, c->flags);
    case KP_SENDFILE:
      return kp_next_sendfile()(c->out_fd, c->in_fd, c->sf_off, len);
    case KP_SENDFILE64:
      return kp_next_sendfile64()(c->out_fd, c->in_fd, c->in_off, len);
  }
  errno = EINVAL;
  return -1;
}

/* The bytes the call will write: len, or what is left of a regular input file if less
 * (cat and cp ask copy_file_range for exabytes). */
static unsigned long long kp_copy_size(const kp_copy_call *c, size_t len) {
  struct stat st;
  if (fstat(c->in_fd, &st) != 0 || !S_ISREG(st.st_mode)) return len;
  off64_t pos = c->in_off != NULL   ? *c->in_off
                : c->sf_off != NULL ? (off64_t)*c->sf_off
                                    : lseek64(c->in_fd, 0, SEEK_CUR);
  if (pos < 0) return len;
  unsigned long long left = st.st_size > pos ? (unsigned long long)(st.st_size - pos) : 0;
  return left < len ? left : len;
}

static ssize_t kp_copy_common(const kp_copy_call *c, size_t len) {
  if (!kp_enabled()) return kp_copy_real(c, len);
  int err = errno;
  kp_guard_enter();
  kp_point p;
  kp_point_init(&p);
  struct stat before;
  (void)kp_fd_point_stat(&p, "write", c->out_fd, &before);
  if (p.armed) {
    p.is_write = 1;
    p.bytes = kp_copy_size(c, len);
    p.offset = c->out_off != NULL ? *c->out_off : -1; /* sendfile writes at the position */
    p.offset_fd = c->out_fd;
  }
  kp_point_hit(&p);
  errno = err;
  ssize_t r = 0;
  if (p.answer == KP_PARTIAL && p.partial < p.bytes) {
    unsigned long long done = 0; /* the kernel advances the offsets (or the file position) */
    while (done < p.partial) {
      r = kp_copy_real(c, (size_t)(p.partial - done));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) break;
      done += (unsigned long long)r;
    }
    r = r < 0 && done == 0 ? -1 : (ssize_t)done;
  } else {
    r = kp_copy_real(c, len);
  }
  err = errno;
  struct stat after;
  if (p.armed && kp_fd_stamp_fd_stat(c->out_fd, &after)) kp_shadow_wrote(&before, &after, -1);
  kp_point_done(&p, r > 0 ? (unsigned long long)r : 0);
  kp_guard_leave();
  errno = err;
  return r;
}

KP_EXPORT ssize_t copy_file_range(int in_fd, off64_t *in_off, int out_fd, off64_t *out_off,
                                  size_t len, unsigned flags) {
  kp_copy_call c = {KP_COPY_FILE_RANGE, out_fd, in_fd, in_off, out_off, NULL, flags};
  return kp_copy_common(&c, len);
}

KP_EXPORT ssize_t sendfile(int out_fd, int in_fd, off_t *off, size_t len) {
  kp_copy_call c = {KP_SENDFILE, out_fd, in_fd, NULL, NULL, off, 0};
  return kp_copy_common(&c, len);
}

KP_EXPORT ssize_t sendfile64(int out_fd, int in_fd, off64_t *off, size_t len) {
  kp_copy_call c = {KP_SENDFILE64, out_fd, in_fd, off, NULL, NULL, 0};
  return kp_copy_common(&c, len);
}

/* ---- truncate, sync, close ---- */

/* A seen truncate: the file's new stamp. */
static int kp_stamped(int r, int fd) {
  int err = errno;
  struct stat st;
  if (kp_fd_stamp_fd_stat(fd, &st)) kp_shadow_truncated(&st);
  errno = err;
  return r;
}

KP_EXPORT int ftruncate(int fd, off_t len) {
  if (!kp_enabled()) return kp_next_ftruncate()(fd, len);
  KP_AROUND(int, kp_fd_point_checked(&kp_p_, "truncate", fd),
            kp_stamped(kp_next_ftruncate()(fd, len), fd));
}

KP_EXPORT int ftruncate64(int fd, off64_t len) {
  if (!kp_enabled()) return kp_next_ftruncate64()(fd, len);
  KP_AROUND(int, kp_fd_point_checked(&kp_p_, "truncate", fd),
            kp_stamped(kp_next_ftruncate64()(fd, len), fd));
}

/* A shared, writable mapping of a tracked file is no crash point (its stores are not calls,
 * docs/syscall-shim.md "What the shim does not see"), but it tells the unseen-write check that
 * the file's mtime may move without a write (kp_fd_mapped). */
KP_REAL(mmap, void *, (void *, size_t, int, int, int, off_t))
KP_REAL(mmap64, void *, (void *, size_t, int, int, int, off64_t))

static void *kp_mapped(void *r, int prot, int flags, int fd) {
  if (r != MAP_FAILED && fd >= 0 && (prot & PROT_WRITE) && (flags & MAP_SHARED) && kp_enabled()) {
    int err = errno;
    kp_fd_mapped(fd);
    errno = err;
  }
  return r;
}

KP_EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off) {
  return kp_mapped(kp_next_mmap()(addr, len, prot, flags, fd, off), prot, flags, fd);
}

KP_EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off) {
  return kp_mapped(kp_next_mmap64()(addr, len, prot, flags, fd, off), prot, flags, fd);
}

/* The point of an fsync or fdatasync. Under the durability journal (shadow.h) a directory's
 * sync waits for an answer: the harness lists the directory then. */
static void kp_sync_point(kp_point *p, const char *op, int fd, struct stat *st) {
  (void)kp_fd_point_stat(p, op, fd, st);
  if (p->armed && kp_shadow_on() && S_ISDIR(st->st_mode)) p->wait = 1;
}

/* fsync or fdatasync of a file the job is let through to: a regular file's content goes to the
 * durability journal first, when there is one; then the kernel's call, or none for a sandbox
 * file when the harness asked (KILLPOINT_SKIP_FSYNC=1): the persistence models, not the disk,
 * decide what a crash keeps, so a real sync would only cost time. The crash point is the same
 * either way. */
static int kp_sync(const kp_point *p, int (*real)(int), int fd, const struct stat *st) {
  if (p->armed && kp_shadow_on() && S_ISREG(st->st_mode) && st->st_nlink > 0)
    kp_shadow_sync(kp_fd_reader(fd), st);
  if (kp_skip_sync() && p->armed) return 0;
  return real(fd);
}

KP_EXPORT int fsync(int fd) {
  if (!kp_enabled()) return kp_next_fsync()(fd);
  struct stat st;
  KP_AROUND(int, kp_sync_point(&kp_p_, "fsync", fd, &st),
            kp_sync(&kp_p_, kp_next_fsync(), fd, &st));
}

KP_EXPORT int fdatasync(int fd) {
  if (!kp_enabled()) return kp_next_fdatasync()(fd);
  struct stat st;
  KP_AROUND(int, kp_sync_point(&kp_p_, "fdatasync", fd, &st),
            kp_sync(&kp_p_, kp_next_fdatasync(), fd, &st));
}

/* The entry goes before the real close: once the fd is closed, another thread may get the
 * same number from open() and record it. */
static void kp_close_point(kp_point *p, int fd) {
  if (!kp_own_process()) return;
  kp_fd_point_checked(p, "close", fd);
  kp_fd_forget(fd);
  kp_channel_forget_fds((unsigned)fd, (unsigned)fd);
}

KP_EXPORT int close(int fd) {
  if (!kp_enabled() || fd < 0) return kp_next_close()(fd);
  KP_AROUND(int, kp_close_point(&kp_p_, fd), kp_next_close()(fd));
}

/* ---- the fd table's upkeep ---- */

/* After a dup of `from` that returned `to` (or -1): `to` takes `from`'s entry, or none. */
static int kp_after_dup(int from, int to) {
  if (to < 0 || from == to || !kp_enabled()) return to;
  int err = errno;
  kp_guard_enter();
  if (kp_own_process()) {
    kp_channel_forget_fds((unsigned)to, (unsigned)to);
    kp_fd_dup(from, to);
  }
  kp_guard_leave();
  errno = err;
  return to;
}

KP_EXPORT int dup(int fd) { return kp_after_dup(fd, kp_next_dup()(fd)); }

/* Before a dup onto `to`, which closes what `to` was open on (a shell restoring its stdout
 * after "printf ... > file"): the unseen writes through it. */
static void kp_before_dup_over(int fd, int to) {
  if (fd == to || !kp_enabled()) return;
  int err = errno;
  kp_guard_enter();
  kp_unseen_write(to, "dup2");
  kp_guard_leave();
  errno = err;
}

KP_EXPORT int dup2(int fd, int to) {
  kp_before_dup_over(fd, to);
  return kp_after_dup(fd, kp_next_dup2()(fd, to));
}

KP_EXPORT int dup3(int fd, int to, int flags) {
  kp_before_dup_over(fd, to);
  return kp_after_dup(fd, kp_next_dup3()(fd, to, flags));
}

/* fcntl's third argument is an int, a pointer or absent; like glibc, pass it on as a
 * pointer-sized value. fcntl64 is glibc's name for it with 64-bit file offsets. */
static int kp_fcntl_common(kp_fn_fcntl next, int fd, int cmd, void *arg) {
  int r = next(fd, cmd, arg);
  return cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC ? kp_after_dup(fd, r) : r;
}

KP_EXPORT int fcntl(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  void *arg = va_arg(ap, void *);
  va_end(ap);
  return kp_fcntl_common(kp_next_fcntl(), fd, cmd, arg);
}

static kp_fn_fcntl kp_next_fcntl64(void) {
  static kp_fn_fcntl cached;
  kp_fn_fcntl fn = __atomic_load_n(&cached, __ATOMIC_ACQUIRE);
  if (fn == NULL) {
    fn = (kp_fn_fcntl)dlsym(RTLD_NEXT, "fcntl64");
    if (fn == NULL) fn = kp_next_fcntl(); /* a libc older than 2.28 */
    __atomic_store_n(&cached, fn, __ATOMIC_RELEASE);
  }
  return fn;
}

KP_EXPORT int fcntl64(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  void *arg = va_arg(ap, void *);
  va_end(ap);
  return kp_fcntl_common(kp_next_fcntl64(), fd, cmd, arg);
}

KP_EXPORT int close_range(unsigned first, unsigned last, int flags) {
  if (!kp_enabled()) return kp_next_close_range()(first, last, flags);
  int r = kp_next_close_range()(first, last, flags);
  int err = errno;
  if (r == 0 && (flags & (int)CLOSE_RANGE_CLOEXEC) == 0 && kp_own_process()) {
    kp_guard_enter();
    kp_fd_forget_range(first, last);
    kp_channel_forget_fds(first, last);
    kp_guard_leave();
  }
  errno = err;
  return r;
}

KP_EXPORT void closefrom(int low) {
  if (kp_enabled() && low >= 0 && kp_own_process()) {
    kp_guard_enter();
    kp_fd_forget_range((unsigned)low, ~0U);
    kp_channel_forget_fds((unsigned)low, ~0U);
    kp_guard_leave();
  }
  kp_next_closefrom()(low);
}
