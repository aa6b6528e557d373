/* fuse_pass: the smallest FUSE pass-through file system that could be a crash-testing harness's
 * interception backend, in the manner of LazyFS (libfuse3's high-level API, a mount over the
 * job's sandbox folder that forwards every operation to a backing folder), for
 * scripts/bench-intercept.sh (docs/interception-backends.md).
 *
 *   fuse_pass [--writeback] [--direct-io] [--kill OP:N] [--log FILE] [--stats FILE]
 *             BACKING MOUNTPOINT [FUSE OPTIONS...]
 *
 * Runs in the foreground (libfuse's -f) until unmounted (fusermount3 -u MOUNTPOINT) or
 * signalled. FUSE OPTIONS go to libfuse: -s for one thread (the default is libfuse's
 * multi-threaded loop), -o for mount options.
 *
 *   --writeback   asks the kernel for FUSE_CAP_WRITEBACK_CACHE: writes land in the page cache
 *                 and reach this process later, batched (at fsync, close or writeback).
 *   --direct-io   every open file is direct I/O (libfuse's direct_io): no page cache at all,
 *                 each read and write is one request of the size the job asked for.
 *   --kill OP:N   at the Nth operation of kind OP (a name from kOpNames, e.g. write:5), sends
 *                 SIGKILL to the calling process's process group (only the caller when that is
 *                 this process's own group) and fails the operation with EIO without doing it:
 *                 the job dies before that operation. fuse_get_context()->pid is the caller's
 *                 thread id in this process's pid namespace; 0 when the kernel itself sends the
 *                 request (writeback), and then nobody is killed.
 *   --log FILE    one line per operation: "seq op pid path [details]".
 *   --stats FILE  when unmounted: "operations N" and one "OP N" line per kind seen.
 *
 * Every operation is done on the backing folder through *at() calls relative to one directory
 * fd, as this process's user: a pass-through, nothing cached of its own.
 *
 * Build: gcc -O2 -Wall $(pkg-config --cflags fuse3) -o fuse_pass fuse_pass.c $(pkg-config --libs
 * fuse3) (Debian: libfuse3-dev; mounting needs /dev/fuse and, unprivileged, fusermount3 from
 * fuse3). */
#define _GNU_SOURCE
#define FUSE_USE_VERSION 31

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <unistd.h>

/* clang-format off */
#define OPS(X)                                                                                   \
  X(getattr) X(access) X(readlink) X(opendir) X(readdir) X(releasedir) X(fsyncdir) X(mknod)       \
  X(mkdir) X(symlink) X(unlink) X(rmdir) X(rename) X(link) X(chmod) X(chown) X(truncate)          \
  X(utimens) X(create) X(open) X(read) X(write) X(statfs) X(flush) X(release) X(fsync)            \
  X(fallocate) X(copy_file_range)
/* clang-format on */
#define AS_ENUM(name) kOp_##name,
#define AS_NAME(name) #name,
enum Op { OPS(AS_ENUM) kOps };
static const char* const kOpNames[] = {OPS(AS_NAME)};

static int root = -1; /* the backing folder */
static int writeback, direct_io_all;
static int kill_op = -1;
static long kill_at;
static atomic_long counts[kOps];
static atomic_long total;
static FILE* log_file;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static const char* stats_path;

/* The path below the backing folder: "/" is ".", "/a/b" is "a/b". */
static const char* Rel(const char* path) { return path[1] ? path + 1 : "."; }

/* Counts the operation, logs it, and kills the caller when it is the one asked for. Returns
 * nonzero when the operation must not be done. */
static int Seen(enum Op op, const char* path, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int Seen(enum Op op, const char* path, const char* fmt, ...) {
  long n = atomic_fetch_add(&counts[op], 1) + 1;
  long seq = atomic_fetch_add(&total, 1) + 1;
  pid_t pid = fuse_get_context()->pid;
  if (log_file) {
    char details[256] = "";
    if (fmt) {
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(details, sizeof details, fmt, ap);
      va_end(ap);
    }
    pthread_mutex_lock(&log_lock);
    fprintf(log_file, "%ld %s pid=%d %s%s%s\n", seq, kOpNames[op], pid, path ? path : "-",
            details[0] ? " " : "", details);
    fflush(log_file);
    pthread_mutex_unlock(&log_lock);
  }
  if ((int)op != kill_op || n != kill_at) return 0;
  if (pid > 0) {
    pid_t group = getpgid(pid);
    if (group > 0 && group != getpgrp()) kill(-group, SIGKILL);
    kill(pid, SIGKILL);
  }
  if (log_file) {
    pthread_mutex_lock(&log_lock);
    if (pid > 0)
      fprintf(log_file, "killed pid %d's group at %s #%ld, not done\n", pid, kOpNames[op], n);
    else
      fprintf(log_file,
              "no caller to kill at %s #%ld (pid 0: sent by the kernel), failed with EIO\n",
              kOpNames[op], n);
    fflush(log_file);
    pthread_mutex_unlock(&log_lock);
  }
  return 1;
}
#define SEEN(op, path, ...)                       \
  do {                                            \
    if (Seen(op, path, __VA_ARGS__)) return -EIO; \
  } while (0)

static int Ret(int r) { return r < 0 ? -errno : 0; }

static void* Init(struct fuse_conn_info* conn, struct fuse_config* cfg) {
  cfg->use_ino = 1;
  cfg->direct_io = direct_io_all;
  if (writeback && (conn->capable & FUSE_CAP_WRITEBACK_CACHE))
    conn->want |= FUSE_CAP_WRITEBACK_CACHE;
  if (!writeback) conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
  return NULL;
}

static void Destroy(void* data) {
  (void)data;
  if (!stats_path) return;
  FILE* f = fopen(stats_path, "we");
  if (!f) return;
  fprintf(f, "operations %ld\n", atomic_load(&total));
  for (int op = 0; op < kOps; ++op)
    if (atomic_load(&counts[op])) fprintf(f, "%s %ld\n", kOpNames[op], atomic_load(&counts[op]));
  fclose(f);
}

static int GetAttr(const char* path, struct stat* st, struct fuse_file_info* fi) {
  SEEN(kOp_getattr, path, NULL);
  if (fi) return Ret(fstat((int)fi->fh, st));
  return Ret(fstatat(root, Rel(path), st, AT_SYMLINK_NOFOLLOW));
}

static int Access(const char* path, int mask) {
  SEEN(kOp_access, path, "mask=%d", mask);
  return Ret(faccessat(root, Rel(path), mask, 0));
}

static int ReadLink(const char* path, char* buf, size_t size) {
  SEEN(kOp_readlink, path, NULL);
  ssize_t n = readlinkat(root, Rel(path), buf, size - 1);
  if (n < 0) return -errno;
  buf[n] = '\0';
  return 0;
}

static int OpenDir(const char* path, struct fuse_file_info* fi) {
  SEEN(kOp_opendir, path, NULL);
  int fd = openat(root, Rel(path), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return -errno;
  DIR* d = fdopendir(fd);
  if (!d) {
    int e = errno;
    close(fd);
    return -e;
  }
  fi->fh = (uint64_t)(uintptr_t)d;
  return 0;
}

static int ReadDir(const char* path, void* buf, fuse_fill_dir_t fill, off_t offset,
                   struct fuse_file_info* fi, enum fuse_readdir_flags flags) {
  (void)offset, (void)flags;
  SEEN(kOp_readdir, path, NULL);
  DIR* d = (DIR*)(uintptr_t)fi->fh;
  rewinddir(d);
  struct dirent* e;
  while ((e = readdir(d))) {
    struct stat st = {.st_ino = e->d_ino, .st_mode = (mode_t)(DTTOIF(e->d_type))};
    if (fill(buf, e->d_name, &st, 0, 0)) break;
  }
  return 0;
}

static int ReleaseDir(const char* path, struct fuse_file_info* fi) {
  SEEN(kOp_releasedir, path, NULL);
  closedir((DIR*)(uintptr_t)fi->fh);
  return 0;
}

static int FsyncDir(const char* path, int datasync, struct fuse_file_info* fi) {
  SEEN(kOp_fsyncdir, path, "datasync=%d", datasync);
  int fd = dirfd((DIR*)(uintptr_t)fi->fh);
  return Ret(datasync ? fdatasync(fd) : fsync(fd));
}

static int MkNod(const char* path, mode_t mode, dev_t rdev) {
  SEEN(kOp_mknod, path, "mode=%o", (unsigned)mode);
  return Ret(mknodat(root, Rel(path), mode, rdev));
}

static int MkDir(const char* path, mode_t mode) {
  SEEN(kOp_mkdir, path, "mode=%o", (unsigned)mode);
  return Ret(mkdirat(root, Rel(path), mode));
}

static int SymLink(const char* target, const char* path) {
  SEEN(kOp_symlink, path, "-> %s", target);
  return Ret(symlinkat(target, root, Rel(path)));
}

static int Unlink(const char* path) {
  SEEN(kOp_unlink, path, NULL);
  return Ret(unlinkat(root, Rel(path), 0));
}

static int RmDir(const char* path) {
  SEEN(kOp_rmdir, path, NULL);
  return Ret(unlinkat(root, Rel(path), AT_REMOVEDIR));
}

static int Rename(const char* from, const char* to, unsigned int flags) {
  SEEN(kOp_rename, from, "-> %s flags=%u", to, flags);
  return Ret(renameat2(root, Rel(from), root, Rel(to), flags));
}

static int Link(const char* from, const char* to) {
  SEEN(kOp_link, from, "-> %s", to);
  return Ret(linkat(root, Rel(from), root, Rel(to), 0));
}

static int ChMod(const char* path, mode_t mode, struct fuse_file_info* fi) {
  SEEN(kOp_chmod, path, "mode=%o", (unsigned)mode);
  if (fi) return Ret(fchmod((int)fi->fh, mode));
  return Ret(fchmodat(root, Rel(path), mode, 0));
}

static int ChOwn(const char* path, uid_t uid, gid_t gid, struct fuse_file_info* fi) {
  SEEN(kOp_chown, path, "%d:%d", (int)uid, (int)gid);
  if (fi) return Ret(fchown((int)fi->fh, uid, gid));
  return Ret(fchownat(root, Rel(path), uid, gid, AT_SYMLINK_NOFOLLOW));
}

static int Truncate(const char* path, off_t size, struct fuse_file_info* fi) {
  SEEN(kOp_truncate, path, "size=%lld", (long long)size);
  if (fi) return Ret(ftruncate((int)fi->fh, size));
  int fd = openat(root, Rel(path), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return -errno;
  int r = Ret(ftruncate(fd, size));
  close(fd);
  return r;
}

static int UTimens(const char* path, const struct timespec ts[2], struct fuse_file_info* fi) {
  SEEN(kOp_utimens, path, NULL);
  if (fi) return Ret(futimens((int)fi->fh, ts));
  return Ret(utimensat(root, Rel(path), ts, AT_SYMLINK_NOFOLLOW));
}

/* Under the writeback cache the kernel reads pages of files opened write-only, and appends
 * itself: the backing file is opened read-write and without O_APPEND (libfuse's passthrough
 * example does the same). */
static int OpenFlags(int flags) {
  if (writeback) {
    if ((flags & O_ACCMODE) == O_WRONLY) flags = (flags & ~O_ACCMODE) | O_RDWR;
    flags &= ~O_APPEND;
  }
  return flags | O_CLOEXEC;
}

static int Create(const char* path, mode_t mode, struct fuse_file_info* fi) {
  SEEN(kOp_create, path, "flags=%#o mode=%o", (unsigned)fi->flags, (unsigned)mode);
  int fd = openat(root, Rel(path), OpenFlags(fi->flags) | O_CREAT, mode);
  if (fd < 0) return -errno;
  fi->fh = (uint64_t)fd;
  return 0;
}

static int Open(const char* path, struct fuse_file_info* fi) {
  SEEN(kOp_open, path, "flags=%#o", (unsigned)fi->flags);
  int fd = openat(root, Rel(path), OpenFlags(fi->flags));
  if (fd < 0) return -errno;
  fi->fh = (uint64_t)fd;
  return 0;
}

static int Read(const char* path, char* buf, size_t size, off_t off, struct fuse_file_info* fi) {
  SEEN(kOp_read, path, "size=%zu off=%lld", size, (long long)off);
  ssize_t n = pread((int)fi->fh, buf, size, off);
  return n < 0 ? -errno : (int)n;
}

static int Write(const char* path, const char* buf, size_t size, off_t off,
                 struct fuse_file_info* fi) {
  SEEN(kOp_write, path, "size=%zu off=%lld", size, (long long)off);
  ssize_t n = pwrite((int)fi->fh, buf, size, off);
  return n < 0 ? -errno : (int)n;
}

static int StatFs(const char* path, struct statvfs* st) {
  SEEN(kOp_statfs, path, NULL);
  return Ret(fstatvfs(root, st));
}

static int Flush(const char* path, struct fuse_file_info* fi) {
  (void)fi;
  SEEN(kOp_flush, path, NULL);
  return 0;
}

static int Release(const char* path, struct fuse_file_info* fi) {
  SEEN(kOp_release, path, NULL);
  close((int)fi->fh);
  return 0;
}

static int Fsync(const char* path, int datasync, struct fuse_file_info* fi) {
  SEEN(kOp_fsync, path, "datasync=%d", datasync);
  return Ret(datasync ? fdatasync((int)fi->fh) : fsync((int)fi->fh));
}

static int Fallocate(const char* path, int mode, off_t off, off_t len, struct fuse_file_info* fi) {
  SEEN(kOp_fallocate, path, "mode=%d off=%lld len=%lld", mode, (long long)off, (long long)len);
  return Ret(fallocate((int)fi->fh, mode, off, len));
}

static ssize_t CopyFileRange(const char* in, struct fuse_file_info* fi_in, off_t off_in,
                             const char* out, struct fuse_file_info* fi_out, off_t off_out,
                             size_t len, int flags) {
  SEEN(kOp_copy_file_range, out, "<- %s len=%zu", in, len);
  ssize_t n =
      copy_file_range((int)fi_in->fh, &off_in, (int)fi_out->fh, &off_out, len, (unsigned)flags);
  return n < 0 ? -errno : n;
}

static const struct fuse_operations kOperations = {
    .init = Init,
    .destroy = Destroy,
    .getattr = GetAttr,
    .access = Access,
    .readlink = ReadLink,
    .opendir = OpenDir,
    .readdir = ReadDir,
    .releasedir = ReleaseDir,
    .fsyncdir = FsyncDir,
    .mknod = MkNod,
    .mkdir = MkDir,
    .symlink = SymLink,
    .unlink = Unlink,
    .rmdir = RmDir,
    .rename = Rename,
    .link = Link,
    .chmod = ChMod,
    .chown = ChOwn,
    .truncate = Truncate,
    .utimens = UTimens,
    .create = Create,
    .open = Open,
    .read = Read,
    .write = Write,
    .statfs = StatFs,
    .flush = Flush,
    .release = Release,
    .fsync = Fsync,
    .fallocate = Fallocate,
    .copy_file_range = CopyFileRange,
};

static int Usage(void) {
  fprintf(stderr,
          "usage: fuse_pass [--writeback] [--direct-io] [--kill OP:N] [--log FILE] [--stats FILE]\n"
          "                 BACKING MOUNTPOINT [FUSE OPTIONS...]\n");
  return 2;
}

int main(int argc, char** argv) {
  int i = 1;
  for (; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; ++i) {
    if (!strcmp(argv[i], "--writeback")) {
      writeback = 1;
    } else if (!strcmp(argv[i], "--direct-io")) {
      direct_io_all = 1;
    } else if (!strcmp(argv[i], "--kill") && i + 1 < argc) {
      char name[64];
      if (sscanf(argv[++i], "%63[^:]:%ld", name, &kill_at) != 2 || kill_at < 1) return Usage();
      for (int op = 0; op < kOps; ++op)
        if (!strcmp(kOpNames[op], name)) kill_op = op;
      if (kill_op < 0) {
        fprintf(stderr, "fuse_pass: --kill: no operation '%s'\n", name);
        return 2;
      }
    } else if (!strcmp(argv[i], "--log") && i + 1 < argc) {
      log_file = fopen(argv[++i], "we");
      if (!log_file) return perror("fuse_pass: --log"), 2;
    } else if (!strcmp(argv[i], "--stats") && i + 1 < argc) {
      stats_path = argv[++i];
    } else {
      return Usage();
    }
  }
  if (argc - i < 2) return Usage();
  const char* backing = argv[i];
  const char* mountpoint = argv[i + 1];
  root = open(backing, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (root < 0) {
    fprintf(stderr, "fuse_pass: %s: %s\n", backing, strerror(errno));
    return 1;
  }
  umask(0);
  /* libfuse's arguments: foreground, a file-system name that says what this is, the mount
   * point, then whatever the caller added (-s, -o ...). */
  char** fargv = calloc((size_t)argc + 8, sizeof *fargv);
  int fargc = 0;
  fargv[fargc++] = argv[0];
  fargv[fargc++] = "-f";
  fargv[fargc++] = "-o";
  fargv[fargc++] = "fsname=fuse_pass,subtype=fuse_pass";
  fargv[fargc++] = (char*)mountpoint;
  for (int k = i + 2; k < argc; ++k) fargv[fargc++] = argv[k];
  return fuse_main(fargc, fargv, &kOperations, NULL);
}
