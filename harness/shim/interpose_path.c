/* Wrappers of the operations on paths: the open family (a crash point when it creates or
 * truncates; every open of a sandbox path is recorded in the fd table), truncate, rename,
 * unlink, rmdir and mkdir. Each of them, and link and symlink (never crash points), reports
 * a change it made outside the sandbox (outside.c). */
#undef _FORTIFY_SOURCE
#undef _FILE_OFFSET_BITS
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "channel.h"
#include "fd_table.h"
#include "interpose.h"
#include "shim.h"

KP_REAL(open, int, (const char *, int, ...))
KP_REAL(open64, int, (const char *, int, ...))
KP_REAL(openat, int, (int, const char *, int, ...))
KP_REAL(openat64, int, (int, const char *, int, ...))
KP_REAL(creat, int, (const char *, mode_t))
KP_REAL(creat64, int, (const char *, mode_t))
KP_REAL(__open_2, int, (const char *, int))
KP_REAL(__open64_2, int, (const char *, int))
KP_REAL(__openat_2, int, (int, const char *, int))
KP_REAL(__openat64_2, int, (int, const char *, int))
KP_REAL(truncate, int, (const char *, off_t))
KP_REAL(truncate64, int, (const char *, off64_t))
KP_REAL(rename, int, (const char *, const char *))
KP_REAL(renameat, int, (int, const char *, int, const char *))
KP_REAL(renameat2, int, (int, const char *, int, const char *, unsigned))
KP_REAL(unlink, int, (const char *))
KP_REAL(unlinkat, int, (int, const char *, int))
KP_REAL(rmdir, int, (const char *))
KP_REAL(mkdir, int, (const char *, mode_t))
KP_REAL(mkdirat, int, (int, const char *, mode_t))
KP_REAL(link, int, (const char *, const char *))
KP_REAL(linkat, int, (int, const char *, int, const char *, int))
KP_REAL(symlink, int, (const char *, const char *))
KP_REAL(symlinkat, int, (const char *, int, const char *))

/* After `op` on path returned r: reports the change when it succeeded outside the sandbox.
 * Call it once the operation's point is done (the channel is free), with the guard held. */
static void kp_outside_after(int r, const char *op, int dirfd, const char *path) {
  if (r == 0) kp_outside_path(op, dirfd, path);
}

/* Arms p as "<op>:<relpath>" when path (relative to dirfd) is in the sandbox. */
static void kp_path_point(kp_point *p, const char *op, int dirfd, const char *path) {
  char rel[KP_PATH_MAX];
  if (kp_own_process() && kp_sandbox_path(dirfd, path, rel, sizeof rel, NULL)) {
    kp_point_name(p, op, rel, NULL);
  }
}

/* ---- the open family ---- */

enum kp_open_kind {
  KP_OPEN,
  KP_OPEN64,
  KP_OPENAT,
  KP_OPENAT64,
  KP_CREAT,
  KP_CREAT64,
  KP_OPEN_2,
  KP_OPEN64_2,
  KP_OPENAT_2,
  KP_OPENAT64_2
};

#define KP_NEEDS_MODE(flags) (((flags)&O_CREAT) != 0 || ((flags)&O_TMPFILE) == O_TMPFILE)

static int kp_open_real(enum kp_open_kind kind, int dirfd, const char *path, int flags,
                        mode_t mode) {
  switch (kind) {
    case KP_OPEN:
      return kp_next_open()(path, flags, mode);
    case KP_OPEN64:
      return kp_next_open64()(path, flags, mode);
    case KP_OPENAT:
      return kp_next_openat()(dirfd, path, flags, mode);
    case KP_OPENAT64:
      return kp_next_openat64()(dirfd, path, flags, mode);
    case KP_CREAT:
      return kp_next_creat()(path, mode);
    case KP_CREAT64:
      return kp_next_creat64()(path, mode);
    case KP_OPEN_2:
      return kp_next___open_2()(path, flags);
    case KP_OPEN64_2:
      return kp_next___open64_2()(path, flags);
    case KP_OPENAT_2:
      return kp_next___openat_2()(dirfd, path, flags);
    case KP_OPENAT64_2:
      return kp_next___openat64_2()(dirfd, path, flags);
  }
  errno = EINVAL;
  return -1;
}

/* True when this open will create the file exclusively (O_CREAT|O_EXCL, as mkstemp, mktemp and
 * Python's tempfile do) and nothing is at the path now, so the open is about to create it: the
 * harness then names the file by its creation order (protocol v1.3, docs/syscall-shim.md). A
 * lock file that already exists fails with EEXIST and is not flagged. */
static int kp_creates_exclusively(enum kp_open_kind kind, int dirfd, const char *path, int flags) {
  if (kind == KP_CREAT || kind == KP_CREAT64 || (flags & (O_CREAT | O_EXCL)) != (O_CREAT | O_EXCL))
    return 0;
  struct stat st;
  return fstatat(dirfd, path, &st, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT;
}

static int kp_open_common(enum kp_open_kind kind, int dirfd, const char *path, int flags,
                          mode_t mode) {
  if (!kp_enabled()) return kp_open_real(kind, dirfd, path, flags, mode);
  int err = errno;
  kp_guard_enter();
  char rel[KP_PATH_MAX];
  int own = kp_own_process();
  /* An O_TMPFILE fd is an unnamed file, not the directory it names: not tracked. */
  char abs[KP_PATH_MAX];
  int tmpfile = (flags & O_TMPFILE) == O_TMPFILE;
  int inside = own && !tmpfile && kp_sandbox_path(dirfd, path, rel, sizeof rel, abs);
  int creates = kind == KP_CREAT || kind == KP_CREAT64 || (flags & (O_CREAT | O_TRUNC)) != 0;
  int writes = creates || (flags & O_ACCMODE) != O_RDONLY;
  kp_point p;
  kp_point_init(&p);
  if (inside && creates) {
    kp_point_name(&p, "open", rel, NULL);
    p.excl = kp_creates_exclusively(kind, dirfd, path, flags);
  }
  kp_point_hit(&p);
  errno = err;
  int fd = kp_open_real(kind, dirfd, path, flags, mode);
  err = errno;
  if (own && fd >= 0) {
    if (inside) {
      kp_fd_set(fd, rel);
    } else {
      kp_fd_forget(fd); /* an entry left by a close the shim did not see */
    }
  }
  kp_point_done(&p, 0);
  /* Also inside: a symlink in the sandbox may lead out of it. */
  if (own && fd >= 0 && writes && !tmpfile) kp_outside_fd("open", fd, abs);
  kp_guard_leave();
  errno = err;
  return fd;
}

#define KP_VA_MODE(flags, last, mode) \
  do {                                \
    if (KP_NEEDS_MODE(flags)) {       \
      va_list ap;                     \
      va_start(ap, last);             \
      mode = (mode_t)va_arg(ap, int); \
      va_end(ap);                     \
    }                                 \
  } while (0)

KP_EXPORT int open(const char *path, int flags, ...) {
  mode_t mode = 0;
  KP_VA_MODE(flags, flags, mode);
  return kp_open_common(KP_OPEN, AT_FDCWD, path, flags, mode);
}

KP_EXPORT int open64(const char *path, int flags, ...) {
  mode_t mode = 0;
  KP_VA_MODE(flags, flags, mode);
  return kp_open_common(KP_OPEN64, AT_FDCWD, path, flags, mode);
}

KP_EXPORT int openat(int dirfd, const char *path, int flags, ...) {
  mode_t mode = 0;
  KP_VA_MODE(flags, flags, mode);
  return kp_open_common(KP_OPENAT, dirfd, path, flags, mode);
}

KP_EXPORT int openat64(int dirfd, const char *path, int flags, ...) {
  mode_t mode = 0;
  KP_VA_MODE(flags, flags, mode);
  return kp_open_common(KP_OPENAT64, dirfd, path, flags, mode);
}

KP_EXPORT int creat(const char *path, mode_t mode) {
  return kp_open_common(KP_CREAT, AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

KP_EXPORT int creat64(const char *path, mode_t mode) {
  return kp_open_common(KP_CREAT64, AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

/* What _FORTIFY_SOURCE builds call for an open without a mode argument (glibc declares them
 * only in its fortify headers). */
KP_EXPORT int __open_2(const char *path, int flags);
KP_EXPORT int __open64_2(const char *path, int flags);
KP_EXPORT int __openat_2(int dirfd, const char *path, int flags);
KP_EXPORT int __openat64_2(int dirfd, const char *path, int flags);

KP_EXPORT int __open_2(const char *path, int flags) {
  return kp_open_common(KP_OPEN_2, AT_FDCWD, path, flags, 0);
}

KP_EXPORT int __open64_2(const char *path, int flags) {
  return kp_open_common(KP_OPEN64_2, AT_FDCWD, path, flags, 0);
}

KP_EXPORT int __openat_2(int dirfd, const char *path, int flags) {
  return kp_open_common(KP_OPENAT_2, dirfd, path, flags, 0);
}

KP_EXPORT int __openat64_2(int dirfd, const char *path, int flags) {
  return kp_open_common(KP_OPENAT64_2, dirfd, path, flags, 0);
}

/* ---- truncate ---- */

KP_EXPORT int truncate(const char *path, off_t len) {
  if (!kp_enabled()) return kp_next_truncate()(path, len);
  KP_AROUND_THEN(int, kp_path_point(&kp_p_, "truncate", AT_FDCWD, path),
                 kp_next_truncate()(path, len),
                 kp_outside_after(kp_r_, "truncate", AT_FDCWD, path));
}

KP_EXPORT int truncate64(const char *path, off64_t len) {
  if (!kp_enabled()) return kp_next_truncate64()(path, len);
  KP_AROUND_THEN(int, kp_path_point(&kp_p_, "truncate", AT_FDCWD, path),
                 kp_next_truncate64()(path, len),
                 kp_outside_after(kp_r_, "truncate", AT_FDCWD, path));
}

/* ---- rename ---- */

enum kp_rename_kind { KP_RENAME, KP_RENAMEAT, KP_RENAMEAT2 };

static int kp_rename_real(enum kp_rename_kind kind, int fromfd, const char *from, int tofd,
                          const char *to, unsigned flags) {
  switch (kind) {
    case KP_RENAME:
      return kp_next_rename()(from, to);
    case KP_RENAMEAT:
      return kp_next_renameat()(fromfd, from, tofd, to);
    case KP_RENAMEAT2:
      return kp_next_renameat2()(fromfd, from, tofd, to, flags);
  }
  errno = EINVAL;
  return -1;
}

/* "rename:SRC:DST" when either side is in the sandbox; a side outside it is named by its
 * absolute path (which starts with '/', where a relpath never does). Afterwards, the fds open
 * on the source (or below it) carry the new name. */
static int kp_rename_common(enum kp_rename_kind kind, int fromfd, const char *from, int tofd,
                            const char *to, unsigned flags) {
  if (!kp_enabled()) return kp_rename_real(kind, fromfd, from, tofd, to, flags);
  int err = errno;
  kp_guard_enter();
  char rel_a[KP_PATH_MAX], rel_b[KP_PATH_MAX], abs_a[KP_PATH_MAX], abs_b[KP_PATH_MAX];
  int own = kp_own_process();
  int in_a = own && kp_sandbox_path(fromfd, from, rel_a, sizeof rel_a, abs_a);
  int in_b = own && kp_sandbox_path(tofd, to, rel_b, sizeof rel_b, abs_b);
  if (in_a) kp_unseen_writes(rel_a, "rename"); /* this process's fds open on the source */
  kp_point p;
  kp_point_init(&p);
  if (in_a || in_b) {
    kp_point_name(&p, "rename", in_a ? rel_a : (abs_a[0] != '\0' ? abs_a : "?"),
                  in_b ? rel_b : (abs_b[0] != '\0' ? abs_b : "?"));
  }
  kp_point_hit(&p);
  errno = err;
  int r = kp_rename_real(kind, fromfd, from, tofd, to, flags);
  err = errno;
  if (r == 0 && (in_a || in_b)) {
    kp_fd_rename(in_a ? rel_a : NULL, in_b ? rel_b : NULL, (flags & RENAME_EXCHANGE) != 0);
  }
  kp_point_done(&p, 0);
  if (r == 0 && own) { /* the file left its old name and took its new one */
    if (!in_a) kp_outside_path("rename", fromfd, from);
    if (!in_b) kp_outside_path("rename", tofd, to);
  }
  kp_guard_leave();
  errno = err;
  return r;
}

KP_EXPORT int rename(const char *from, const char *to) {
  return kp_rename_common(KP_RENAME, AT_FDCWD, from, AT_FDCWD, to, 0);
}

KP_EXPORT int renameat(int fromfd, const char *from, int tofd, const char *to) {
  return kp_rename_common(KP_RENAMEAT, fromfd, from, tofd, to, 0);
}

KP_EXPORT int renameat2(int fromfd, const char *from, int tofd, const char *to, unsigned flags) {
  return kp_rename_common(KP_RENAMEAT2, fromfd, from, tofd, to, flags);
}

/* ---- unlink, mkdir ---- */

KP_EXPORT int unlink(const char *path) {
  if (!kp_enabled()) return kp_next_unlink()(path);
  KP_AROUND_THEN(int, kp_path_point(&kp_p_, "unlink", AT_FDCWD, path), kp_next_unlink()(path),
                 kp_outside_after(kp_r_, "unlink", AT_FDCWD, path));
}

KP_EXPORT int unlinkat(int dirfd, const char *path, int flags) {
  if (!kp_enabled()) return kp_next_unlinkat()(dirfd, path, flags);
  KP_AROUND_THEN(
      int, kp_path_point(&kp_p_, "unlink", dirfd, path), kp_next_unlinkat()(dirfd, path, flags),
      kp_outside_after(kp_r_, (flags & AT_REMOVEDIR) != 0 ? "rmdir" : "unlink", dirfd, path));
}

KP_EXPORT int rmdir(const char *path) {
  if (!kp_enabled()) return kp_next_rmdir()(path);
  KP_AROUND_THEN(int, kp_path_point(&kp_p_, "unlink", AT_FDCWD, path), kp_next_rmdir()(path),
                 kp_outside_after(kp_r_, "rmdir", AT_FDCWD, path));
}

KP_EXPORT int mkdir(const char *path, mode_t mode) {
  if (!kp_enabled()) return kp_next_mkdir()(path, mode);
  KP_AROUND_THEN(int, kp_path_point(&kp_p_, "mkdir", AT_FDCWD, path), kp_next_mkdir()(path, mode),
                 kp_outside_after(kp_r_, "mkdir", AT_FDCWD, path));
}

KP_EXPORT int mkdirat(int dirfd, const char *path, mode_t mode) {
  if (!kp_enabled()) return kp_next_mkdirat()(dirfd, path, mode);
  KP_AROUND_THEN(int, kp_path_point(&kp_p_, "mkdir", dirfd, path),
                 kp_next_mkdirat()(dirfd, path, mode),
                 kp_outside_after(kp_r_, "mkdir", dirfd, path));
}

/* ---- link, symlink: not crash points; a new name outside the sandbox is reported ---- */

#define KP_OUTSIDE_ONLY(call, op, dirfd, path) \
  do {                                         \
    kp_guard_enter();                          \
    int kp_r_ = call;                          \
    int kp_err_ = errno;                       \
    kp_outside_after(kp_r_, op, dirfd, path);  \
    kp_guard_leave();                          \
    errno = kp_err_;                           \
    return kp_r_;                              \
  } while (0)

KP_EXPORT int link(const char *from, const char *to) {
  if (!kp_enabled()) return kp_next_link()(from, to);
  KP_OUTSIDE_ONLY(kp_next_link()(from, to), "link", AT_FDCWD, to);
}

KP_EXPORT int linkat(int fromfd, const char *from, int tofd, const char *to, int flags) {
  if (!kp_enabled()) return kp_next_linkat()(fromfd, from, tofd, to, flags);
  KP_OUTSIDE_ONLY(kp_next_linkat()(fromfd, from, tofd, to, flags), "link", tofd, to);
}

KP_EXPORT int symlink(const char *target, const char *path) {
  if (!kp_enabled()) return kp_next_symlink()(target, path);
  KP_OUTSIDE_ONLY(kp_next_symlink()(target, path), "symlink", AT_FDCWD, path);
}

KP_EXPORT int symlinkat(const char *target, int dirfd, const char *path) {
  if (!kp_enabled()) return kp_next_symlinkat()(target, dirfd, path);
  KP_OUTSIDE_ONLY(kp_next_symlinkat()(target, dirfd, path), "symlink", dirfd, path);
}
