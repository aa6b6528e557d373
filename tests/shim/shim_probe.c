/* A tiny C job for tests/shim: does the file operations its first argument names, in the
 * current directory (the sandbox), and exits 0 when every call behaved as libc promises.
 * Failures print what went wrong and exit 1.
 *
 *   dup      open, dup2, pwritev, fdatasync, fcntl(F_DUPFD_CLOEXEC), ftruncate, closes
 *   paths    dirfds, "..", renameat, truncate, a rename from outside (argv[2]), unlinkat
 *   errno    errno left as the real call left it, on success and on failure
 *   fork     writes in the parent and in a forked child
 *   vfork    a vforked child (as Python's subprocess makes) closes and dup2s the parent's
 *            tracked fd before it execs: the parent's table must not notice
 *   clone    the same through clone(CLONE_VM | CLONE_VFORK)
 *   threads  4 threads, 50 writes each to their own file
 *   syncfifo fsync and fdatasync of a FIFO in the sandbox, which the kernel refuses (EINVAL):
 *            prints what each returned, so a test sees whether the kernel was asked
 *   unseen   writes the shim cannot see (raw write system calls): one to a file it then
 *            closes, one to a redirected stdout that it then restores with dup2
 *   mmap     stores through a shared mapping of a file (its mtime moves, its size does not),
 *            then a raw write that makes a mapped file longer
 *   offsets  writes whose file offsets the HIT lines carry (protocol v1.7): a pwrite at 100,
 *            a write and a writev at the position an lseek left, O_APPEND writes (a pwrite too)
 *   write-at PATH OFFSET BYTES pwrite|seek|append
 *            one write of BYTES bytes landing at OFFSET of PATH: by pwrite, by write after an
 *            lseek, or by write through O_APPEND to a file first made OFFSET bytes long. When
 *            PATH exists already (a retry after a kill), prints found=SIZE and writes nothing */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK(cond)                                                                       \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      fprintf(stderr, "shim_probe: line %d: %s (errno %d: %s)\n", __LINE__, #cond, errno, \
              strerror(errno));                                                           \
      exit(1);                                                                            \
    }                                                                                     \
  } while (0)

static void write_file(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  CHECK(fd >= 0);
  CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
  CHECK(close(fd) == 0);
}

static int probe_dup(void) {
  int fd = open("data.bin", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  CHECK(fd >= 0);
  CHECK(dup2(fd, 40) == 40);
  struct iovec iov[2] = {{(void *)"hello ", 6}, {(void *)"world!", 6}};
  ssize_t n = pwritev(40, iov, 2, 0);
  printf("pwritev=%zd\n", n);
  CHECK(n >= 0);
  CHECK(fdatasync(40) == 0);
  int copy = fcntl(40, F_DUPFD_CLOEXEC, 50);
  CHECK(copy >= 50);
  CHECK(ftruncate(copy, 11) == 0);
  CHECK(close(40) == 0);
  CHECK(close(fd) == 0);
  CHECK(close(copy) == 0);
  return 0;
}

static int probe_paths(const char *outside_file) {
  CHECK(mkdir("sub", 0755) == 0);
  int dir = open("sub", O_RDONLY | O_DIRECTORY);
  CHECK(dir >= 0);
  int fd = openat(dir, "../sub/./x", O_WRONLY | O_CREAT | O_EXCL, 0644);
  CHECK(fd >= 0);
  CHECK(write(fd, "abc", 3) == 3);
  CHECK(close(fd) == 0);
  CHECK(renameat(dir, "x", AT_FDCWD, "y") == 0);
  CHECK(truncate("y", 1) == 0);
  CHECK(rename(outside_file, "moved in") == 0);
  CHECK(unlinkat(dir, "../y", 0) == 0);
  CHECK(close(dir) == 0);
  CHECK(unlinkat(AT_FDCWD, "sub", AT_REMOVEDIR) == 0);
  return 0;
}

static int probe_errno(void) {
  errno = 1234;
  int fd = open("e", O_WRONLY | O_CREAT, 0644);
  CHECK(fd >= 0 && errno == 1234);
  CHECK(write(fd, "x", 1) == 1 && errno == 1234);
  CHECK(fsync(fd) == 0 && errno == 1234);
  CHECK(unlink("missing") == -1 && errno == ENOENT);
  CHECK(mkdir("e", 0755) == -1 && errno == EEXIST);
  CHECK(rename("missing", "other") == -1 && errno == ENOENT);
  errno = 1234;
  CHECK(close(fd) == 0 && errno == 1234);
  CHECK(close(fd) == -1 && errno == EBADF);
  CHECK(write(fd, "x", 1) == -1 && errno == EBADF);
  return 0;
}

static int probe_unseen(void) {
  int fd = open("raw.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  CHECK(fd >= 0);
  CHECK(syscall(SYS_write, fd, "hello\n", 6) == 6);
  CHECK(close(fd) == 0);
  int out = open("redirect.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644); /* as a shell's "> f" */
  CHECK(out >= 0);
  int saved = dup(1);
  CHECK(saved >= 0);
  CHECK(dup2(out, 1) == 1);
  CHECK(close(out) == 0);
  CHECK(syscall(SYS_write, 1, "abc", 3) == 3);
  CHECK(dup2(saved, 1) == 1);
  CHECK(close(saved) == 0);
  return 0;
}

static int probe_mmap(void) {
  int fd = open("mapped.bin", O_RDWR | O_CREAT | O_TRUNC, 0644);
  CHECK(fd >= 0);
  CHECK(ftruncate(fd, 4096) == 0);
  char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  CHECK(p != MAP_FAILED);
  CHECK(usleep(30000) == 0); /* past the coarse clock's tick: the store's fault moves the mtime */
  memcpy(p, "mapped", 6);
  CHECK(msync(p, 4096, MS_SYNC) == 0);
  CHECK(munmap(p, 4096) == 0);
  CHECK(close(fd) == 0);
  int grown = open("grown.bin", O_RDWR | O_CREAT | O_TRUNC, 0644);
  CHECK(grown >= 0);
  CHECK(ftruncate(grown, 4096) == 0);
  p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, grown, 0);
  CHECK(p != MAP_FAILED);
  CHECK(syscall(SYS_pwrite64, grown, "x", 1, 4096) == 1);
  CHECK(munmap(p, 4096) == 0);
  CHECK(close(grown) == 0);
  return 0;
}

static int probe_fork(void) {
  write_file("parent.txt", "before fork\n");
  pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    write_file("child.txt", "child\n");
    _exit(0);
  }
  int status;
  CHECK(waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  write_file("parent.txt", "after fork\n");
  return 0;
}

/* The child's calls on fd (shared memory, its own fd table), then an exec of true(1). */
static int shared_memory_child(void *arg) {
  int fd = *(int *)arg;
  dup2(fd, 1);
  close(fd);
  char *argv[] = {"true", NULL};
  execvp("true", argv);
  _exit(127);
}

static int probe_shared_memory_child(int use_clone) {
  int fd = open("parent.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  CHECK(fd >= 0);
  CHECK(write(fd, "before\n", 7) == 7);
  pid_t child;
  static char stack[64 * 1024];
  if (use_clone) {
    child = clone(shared_memory_child, stack + sizeof stack, CLONE_VM | CLONE_VFORK | SIGCHLD, &fd);
  } else {
    child = vfork();
    if (child == 0) shared_memory_child(&fd);
  }
  CHECK(child > 0);
  int status;
  CHECK(waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK(write(fd, "after\n", 6) == 6);
  CHECK(close(fd) == 0);
  return 0;
}

static void *thread_main(void *arg) {
  char path[32];
  snprintf(path, sizeof path, "t%d.txt", (int)(long)arg);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  CHECK(fd >= 0);
  for (int i = 0; i < 50; ++i) CHECK(write(fd, "0123456789", 10) == 10);
  CHECK(close(fd) == 0);
  return NULL;
}

static int probe_threads(void) {
  pthread_t threads[4];
  for (long i = 0; i < 4; ++i)
    CHECK(pthread_create(&threads[i], NULL, thread_main, (void *)i) == 0);
  for (int i = 0; i < 4; ++i) CHECK(pthread_join(threads[i], NULL) == 0);
  return 0;
}

static int probe_syncfifo(void) {
  CHECK(mkfifo("fifo", 0644) == 0);
  int fd = open("fifo", O_RDWR);
  CHECK(fd >= 0);
  errno = 0;
  int r = fsync(fd);
  printf("fsync=%d errno=%d\n", r, r == 0 ? 0 : errno);
  errno = 0;
  r = fdatasync(fd);
  printf("fdatasync=%d errno=%d\n", r, r == 0 ? 0 : errno);
  CHECK(close(fd) == 0);
  return 0;
}

static int probe_offsets(void) {
  static char buf[10000];
  memset(buf, 'a', sizeof buf);
  int fd = open("off.bin", O_RDWR | O_CREAT | O_TRUNC, 0644);
  CHECK(fd >= 0);
  CHECK(pwrite(fd, buf, sizeof buf, 100) == (ssize_t)sizeof buf);
  CHECK(lseek(fd, 5000, SEEK_SET) == 5000);
  CHECK(write(fd, buf, 10) == 10);
  struct iovec iov[2] = {{buf, 3}, {buf, 4}};
  CHECK(writev(fd, iov, 2) == 7);
  CHECK(close(fd) == 0);
  int app = open("app.bin", O_WRONLY | O_CREAT | O_APPEND, 0644);
  CHECK(app >= 0);
  CHECK(write(app, buf, 7) == 7);
  CHECK(pwrite(app, buf, 5, 0) == 5); /* Linux appends: O_APPEND wins over the offset */
  CHECK(close(app) == 0);
  return 0;
}

static int probe_write_at(const char *path, long long offset, long long bytes, const char *how) {
  struct stat st;
  if (stat(path, &st) == 0) {
    printf("found=%lld\n", (long long)st.st_size);
    return 0;
  }
  char *buf = malloc((size_t)bytes);
  CHECK(buf != NULL);
  memset(buf, 'x', (size_t)bytes);
  int append = strcmp(how, "append") == 0;
  int fd = open(path, O_WRONLY | O_CREAT | (append ? O_APPEND : 0), 0644);
  CHECK(fd >= 0);
  ssize_t n = -1;
  if (strcmp(how, "pwrite") == 0) {
    n = pwrite(fd, buf, (size_t)bytes, (off_t)offset);
  } else if (strcmp(how, "seek") == 0) {
    CHECK(lseek(fd, (off_t)offset, SEEK_SET) == (off_t)offset);
    n = write(fd, buf, (size_t)bytes);
  } else if (append) {
    CHECK(ftruncate(fd, (off_t)offset) == 0);
    n = write(fd, buf, (size_t)bytes);
  }
  printf("wrote=%zd\n", n);
  CHECK(n == (ssize_t)bytes);
  CHECK(close(fd) == 0);
  free(buf);
  return 0;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  const char *mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "dup") == 0) return probe_dup();
  if (strcmp(mode, "paths") == 0 && argc > 2) return probe_paths(argv[2]);
  if (strcmp(mode, "errno") == 0) return probe_errno();
  if (strcmp(mode, "fork") == 0) return probe_fork();
  if (strcmp(mode, "vfork") == 0) return probe_shared_memory_child(0);
  if (strcmp(mode, "clone") == 0) return probe_shared_memory_child(1);
  if (strcmp(mode, "threads") == 0) return probe_threads();
  if (strcmp(mode, "syncfifo") == 0) return probe_syncfifo();
  if (strcmp(mode, "unseen") == 0) return probe_unseen();
  if (strcmp(mode, "mmap") == 0) return probe_mmap();
  if (strcmp(mode, "offsets") == 0) return probe_offsets();
  if (strcmp(mode, "write-at") == 0 && argc > 5)
    return probe_write_at(argv[2], atoll(argv[3]), atoll(argv[4]), argv[5]);
  fprintf(stderr,
          "usage: shim_probe dup|paths OUTSIDE_FILE|errno|fork|vfork|clone|threads|syncfifo|unseen|"
          "mmap|offsets|write-at PATH OFFSET BYTES pwrite|seek|append\n");
  return 2;
}
