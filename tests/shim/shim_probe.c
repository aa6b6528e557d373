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
 *            then a raw write that makes a mapped file longer */
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
  fprintf(stderr,
          "usage: shim_probe dup|paths OUTSIDE_FILE|errno|fork|vfork|clone|threads|syncfifo|unseen|"
          "mmap\n");
  return 2;
}
