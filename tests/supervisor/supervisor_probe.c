/* A job the LD_PRELOAD shim cannot see into, for the supervisor's tests (supervisor_test.cc):
 * built statically, it does its file operations in the sandbox ($KILLPOINT_WORKDIR) in the way
 * its one argument names, then exits 0 (or with the code "exit N" names). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

static char g_path[4096];

static const char *in_sandbox(const char *name) {
  snprintf(g_path, sizeof g_path, "%s/%s", getenv("KILLPOINT_WORKDIR"), name);
  return g_path;
}

static int die(const char *what) {
  fprintf(stderr, "supervisor_probe: %s: %s\n", what, strerror(errno));
  return 1;
}

/* The atomic replace through libc's wrappers (static, so no LD_PRELOAD reaches them). */
static int save(void) {
  char tmp[4096], dst[4096];
  snprintf(tmp, sizeof tmp, "%s", in_sandbox("state.json.tmp"));
  snprintf(dst, sizeof dst, "%s", in_sandbox("state.json"));
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666); /* the umask decides */
  if (fd < 0) return die("open");
  if (write(fd, "{\"n\": 1}\n", 9) != 9 || fsync(fd) != 0 || close(fd) != 0) return die("write");
  if (rename(tmp, dst) != 0) return die("rename");
  int dir = open(getenv("KILLPOINT_WORKDIR"), O_RDONLY | O_DIRECTORY);
  if (dir < 0 || fsync(dir) != 0 || close(dir) != 0) return die("fsync dir");
  return 0;
}

/* The same by raw system calls, as Go's runtime makes them. */
static int raw(void) {
  long fd =
      syscall(SYS_openat, AT_FDCWD, in_sandbox("raw.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return die("openat");
  if (syscall(SYS_write, fd, "raw\n", 4) != 4 || syscall(SYS_fdatasync, fd) != 0)
    return die("write");
  return syscall(SYS_close, fd) == 0 ? 0 : die("close");
}

/* Durable writes with no fsync call: O_DSYNC, then pwritev2(RWF_DSYNC) on a plain descriptor. */
static int dsync(void) {
  int fd = open(in_sandbox("dsync.txt"), O_WRONLY | O_CREAT | O_TRUNC | O_DSYNC, 0644);
  if (fd < 0 || write(fd, "abc", 3) != 3 || close(fd) != 0) return die("O_DSYNC");
  fd = open(in_sandbox("rwf.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  struct iovec iov = {"defg", 4};
  if (fd < 0 || pwritev2(fd, &iov, 1, -1, RWF_DSYNC) != 4 || close(fd) != 0)
    return die("RWF_DSYNC");
  return 0;
}

/* Stores through a shared mapping made durable by msync(MS_SYNC). */
static int map(void) {
  int fd = open(in_sandbox("map.bin"), O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || ftruncate(fd, 4096) != 0) return die("map.bin");
  char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return die("mmap");
  memcpy(p, "mapped", 6);
  if (msync(p, 4096, MS_SYNC) != 0) return die("msync");
  return close(fd) == 0 ? 0 : die("close");
}

/* stdio: fopen, fwrite, fflush, fsync(fileno), fclose; glibc's internal calls. */
static int stdio(void) {
  FILE *f = fopen(in_sandbox("stdio.txt"), "w");
  if (f == NULL || fputs("stdio\n", f) < 0 || fflush(f) != 0 || fsync(fileno(f)) != 0)
    return die("stdio");
  return fclose(f) == 0 ? 0 : die("fclose");
}

/* A file unlinked while open, then written and closed, as SQLite does with its -shm. */
static int unlinked(void) {
  int fd = open(in_sandbox("gone"), O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || unlink(in_sandbox("gone")) != 0 || write(fd, "x", 1) != 1) return die("unlinked");
  return close(fd) == 0 ? 0 : die("close");
}

/* An unnamed file (O_TMPFILE), written and synced, named by linkat, renamed into place. */
static int unnamed(void) {
  int fd = open(getenv("KILLPOINT_WORKDIR"), O_TMPFILE | O_WRONLY, 0644);
  char proc[64];
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  char dst[4096];
  snprintf(dst, sizeof dst, "%s", in_sandbox("t"));
  if (fd < 0 || write(fd, "tmp\n", 4) != 4 || fsync(fd) != 0) return die("O_TMPFILE");
  if (linkat(AT_FDCWD, proc, AT_FDCWD, in_sandbox("t.new"), AT_SYMLINK_FOLLOW) != 0)
    return die("linkat");
  if (rename(in_sandbox("t.new"), dst) != 0 || close(fd) != 0) return die("rename");
  int dir = open(getenv("KILLPOINT_WORKDIR"), O_RDONLY | O_DIRECTORY);
  return dir >= 0 && fsync(dir) == 0 && close(dir) == 0 ? 0 : die("fsync dir");
}

/* sync(2), then syncfs(2) of the sandbox, then of /proc (another file system). */
static int syncs(void) {
  int fd = open(in_sandbox("s.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || write(fd, "s", 1) != 1) return die("s.txt");
  sync();
  if (syncfs(fd) != 0) return die("syncfs");
  int proc = open("/proc/self/status", O_RDONLY);
  if (proc < 0 || syncfs(proc) != 0) return die("syncfs /proc");
  return close(fd) == 0 && close(proc) == 0 ? 0 : die("close");
}

/* What the durability journal records: appends (log), writes at the file position (seq), a
 * truncate, an O_DSYNC write, stores through a mapping made durable by msync; then the sync of
 * the sandbox folder. */
static int journal(void) {
  int fd = open(in_sandbox("log"), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0 || write(fd, "abc", 3) != 3 || fsync(fd) != 0 || write(fd, "de", 2) != 2 ||
      fsync(fd) != 0 || ftruncate(fd, 1) != 0 || write(fd, "XY", 2) != 2 || fsync(fd) != 0 ||
      close(fd) != 0)
    return die("log");
  fd = open(in_sandbox("seq"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || write(fd, "12", 2) != 2 || fsync(fd) != 0 || write(fd, "34", 2) != 2 ||
      fsync(fd) != 0 || close(fd) != 0)
    return die("seq");
  fd = open(in_sandbox("dsync"), O_WRONLY | O_CREAT | O_TRUNC | O_DSYNC, 0644);
  if (fd < 0 || write(fd, "ds", 2) != 2 || close(fd) != 0) return die("dsync");
  if (map() != 0) return 1;
  int dir = open(getenv("KILLPOINT_WORKDIR"), O_RDONLY | O_DIRECTORY);
  return dir >= 0 && fsync(dir) == 0 && close(dir) == 0 ? 0 : die("fsync dir");
}

/* A thread other than the main one writes a file; prints the process's pid. */
static void *thread_save(void *unused) {
  (void)unused;
  int fd = open(in_sandbox("thread.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || write(fd, "t\n", 2) != 2 || fsync(fd) != 0 || close(fd) != 0) die("thread");
  return NULL;
}

static int thread(void) {
  printf("%d\n", (int)getpid());
  fflush(stdout);
  pthread_t t;
  if (pthread_create(&t, NULL, thread_save, NULL) != 0 || pthread_join(t, NULL) != 0)
    return die("pthread");
  return 0;
}

/* An io_uring: the supervisor refuses it (ENOSYS); prints what the call answered. */
static int uring(void) {
  char params[120] = {0};
  long fd = syscall(SYS_io_uring_setup, 4, params);
  printf("io_uring_setup: %s\n", fd < 0 ? strerror(errno) : "ok");
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  if (strcmp(argv[1], "save") == 0) return save();
  if (strcmp(argv[1], "raw") == 0) return raw();
  if (strcmp(argv[1], "dsync") == 0) return dsync();
  if (strcmp(argv[1], "map") == 0) return map();
  if (strcmp(argv[1], "stdio") == 0) return stdio();
  if (strcmp(argv[1], "uring") == 0) return uring();
  if (strcmp(argv[1], "unlinked") == 0) return unlinked();
  if (strcmp(argv[1], "syncs") == 0) return syncs();
  if (strcmp(argv[1], "tmpfile") == 0) return unnamed();
  if (strcmp(argv[1], "journal") == 0) return journal();
  if (strcmp(argv[1], "thread") == 0) return thread();
  if (strcmp(argv[1], "exit") == 0 && argc > 2) return atoi(argv[2]);
  return 2;
}
