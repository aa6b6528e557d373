/* probes: tiny jobs that each exercise one way of changing a file, for
 * scripts/intercept-probe.sh, which runs them under each interception backend and records what
 * the backend received (docs/interception-backends.md, "What each backend sees").
 *
 *   probes KIND DIR
 *
 *   write   open DIR/probe.dat O_CREAT|O_TRUNC, write, fsync, close through libc (built also
 *           with -static: the static-binary case)
 *   raw     the same with the `syscall` instruction inline, no libc wrapper (as Go's runtime
 *           makes its system calls)
 *   uring   opens the file with libc, then writes and fsyncs it through io_uring (raw
 *           io_uring_setup/io_uring_enter, no liburing), then closes it
 *   mmap    ftruncate to 2 pages, MAP_SHARED stores of 10 bytes in each page, msync(MS_SYNC),
 *           one more store, munmap, close; a marker between the steps
 *   osync   open O_WRONLY|O_CREAT|O_TRUNC|O_SYNC, two writes of 100 bytes, close; then the same
 *           with O_DSYNC
 *   order   two processes A and B take turns through pipes: A writes a.dat, then B writes
 *           b.dat, three times each (the true order is A1 B1 A2 B2 A3 B3), then each fsyncs
 *           and closes its file
 *
 * A marker is access("DIR/marker-NAME"): it changes nothing, and the FUSE log shows it (a
 * LOOKUP/getattr of that name) between the steps, so the log says when each step's requests
 * arrived. Exit 0 when every step succeeded. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir_path[3000];

static int Die(const char* what) {
  fprintf(stderr, "probes: %s: %s\n", what, strerror(errno));
  exit(1);
}

static const char* In(const char* name) {
  static char paths[4][3100];
  static int next;
  char* p = paths[next++ % 4];
  snprintf(p, sizeof paths[0], "%s/%s", dir_path, name);
  return p;
}

static void Marker(const char* name) {
  char m[64];
  snprintf(m, sizeof m, "marker-%s", name);
  (void)access(In(m), F_OK);
}

static int Write(void) {
  int fd = open(In("probe.dat"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) Die("open");
  if (write(fd, "hello\n", 6) != 6) Die("write");
  if (fsync(fd) != 0) Die("fsync");
  if (close(fd) != 0) Die("close");
  return 0;
}

/* The `syscall` instruction itself, as a Go binary makes it: no libc function is called. */
static long Raw(long nr, long a, long b, long c, long d) {
  long ret;
  register long r10 __asm__("r10") = d;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10)
                   : "rcx", "r11", "memory");
  return ret;
}

static int RawWrite(void) {
  long fd = Raw(SYS_openat, AT_FDCWD, (long)In("probe.dat"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return errno = (int)-fd, Die("raw openat");
  if (Raw(SYS_write, fd, (long)"hello\n", 6, 0) != 6) Die("raw write");
  if (Raw(SYS_fsync, fd, 0, 0, 0) != 0) Die("raw fsync");
  if (Raw(SYS_close, fd, 0, 0, 0) != 0) Die("raw close");
  return 0;
}

static int Uring(void) {
  int fd = open(In("probe.dat"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) Die("open");
  struct io_uring_params p;
  memset(&p, 0, sizeof p);
  int ring = (int)syscall(SYS_io_uring_setup, 4, &p);
  if (ring < 0) Die("io_uring_setup");
  size_t sq_size = p.sq_off.array + p.sq_entries * sizeof(uint32_t);
  size_t cq_size = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
  if (p.features & IORING_FEAT_SINGLE_MMAP)
    sq_size = cq_size = sq_size > cq_size ? sq_size : cq_size;
  char* sq = mmap(NULL, sq_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring,
                  IORING_OFF_SQ_RING);
  if (sq == MAP_FAILED) Die("mmap sq");
  char* cq = (p.features & IORING_FEAT_SINGLE_MMAP)
                 ? sq
                 : mmap(NULL, cq_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring,
                        IORING_OFF_CQ_RING);
  if (cq == MAP_FAILED) Die("mmap cq");
  struct io_uring_sqe* sqes =
      mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
           MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQES);
  if (sqes == MAP_FAILED) Die("mmap sqes");
  uint32_t* tail = (uint32_t*)(sq + p.sq_off.tail);
  uint32_t mask = *(uint32_t*)(sq + p.sq_off.ring_mask);
  uint32_t* array = (uint32_t*)(sq + p.sq_off.array);
  static const char text[] = "hello from io_uring\n";
  uint32_t t = *tail;
  struct io_uring_sqe* w = &sqes[t & mask];
  memset(w, 0, sizeof *w);
  w->opcode = IORING_OP_WRITE;
  w->fd = fd;
  w->addr = (uint64_t)(uintptr_t)text;
  w->len = sizeof text - 1;
  w->off = 0;
  w->flags = IOSQE_IO_LINK;
  w->user_data = 1;
  array[t & mask] = t & mask;
  ++t;
  struct io_uring_sqe* f = &sqes[t & mask];
  memset(f, 0, sizeof *f);
  f->opcode = IORING_OP_FSYNC;
  f->fd = fd;
  f->user_data = 2;
  array[t & mask] = t & mask;
  ++t;
  __atomic_store_n(tail, t, __ATOMIC_RELEASE);
  long n = syscall(SYS_io_uring_enter, ring, 2, 2, IORING_ENTER_GETEVENTS, NULL, 0);
  if (n != 2) Die("io_uring_enter");
  uint32_t* chead = (uint32_t*)(cq + p.cq_off.head);
  uint32_t ctail = __atomic_load_n((uint32_t*)(cq + p.cq_off.tail), __ATOMIC_ACQUIRE);
  uint32_t cmask = *(uint32_t*)(cq + p.cq_off.ring_mask);
  struct io_uring_cqe* cqes = (struct io_uring_cqe*)(cq + p.cq_off.cqes);
  int ok = 0;
  for (uint32_t h = *chead; h != ctail; ++h) {
    struct io_uring_cqe* c = &cqes[h & cmask];
    if ((c->user_data == 1 && c->res == (int)(sizeof text - 1)) ||
        (c->user_data == 2 && c->res == 0))
      ++ok;
    else
      fprintf(stderr, "probes: io_uring op %llu: %d\n", (unsigned long long)c->user_data, c->res);
  }
  __atomic_store_n(chead, ctail, __ATOMIC_RELEASE);
  close(ring);
  if (close(fd) != 0) Die("close");
  return ok == 2 ? 0 : 1;
}

static int Mmap(void) {
  long page = sysconf(_SC_PAGESIZE);
  int fd = open(In("probe.dat"), O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) Die("open");
  if (ftruncate(fd, 2 * page) != 0) Die("ftruncate");
  char* m = mmap(NULL, (size_t)(2 * page), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (m == MAP_FAILED) Die("mmap");
  Marker("after-mmap");
  memcpy(m, "page0store", 10);
  memcpy(m + page + 5, "page1store", 10);
  Marker("after-stores");
  if (msync(m, (size_t)(2 * page), MS_SYNC) != 0) Die("msync");
  Marker("after-msync");
  memcpy(m + 100, "laststore!", 10);
  if (munmap(m, (size_t)(2 * page)) != 0) Die("munmap");
  Marker("after-munmap");
  if (close(fd) != 0) Die("close");
  Marker("after-close");
  return 0;
}

static int Osync(void) {
  const int flags[2] = {O_SYNC, O_DSYNC};
  const char* names[2] = {"osync.dat", "odsync.dat"};
  char block[100];
  memset(block, 's', sizeof block);
  for (int i = 0; i < 2; ++i) {
    int fd = open(In(names[i]), O_WRONLY | O_CREAT | O_TRUNC | flags[i], 0644);
    if (fd < 0) Die("open");
    Marker(i == 0 ? "osync-open" : "odsync-open");
    if (write(fd, block, sizeof block) != (ssize_t)sizeof block) Die("write");
    Marker(i == 0 ? "osync-write1" : "odsync-write1");
    if (write(fd, block, sizeof block) != (ssize_t)sizeof block) Die("write");
    Marker(i == 0 ? "osync-write2" : "odsync-write2");
    if (close(fd) != 0) Die("close");
  }
  return 0;
}

/* A and B alternate: A writes, passes the turn to B through a pipe, B writes, passes it back. */
static int Order(void) {
  int to_b[2], to_a[2];
  if (pipe(to_b) || pipe(to_a)) Die("pipe");
  pid_t b = fork();
  if (b < 0) Die("fork");
  int me_a = b != 0;
  int fd = open(In(me_a ? "a.dat" : "b.dat"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) Die("open");
  char token;
  for (int i = 1; i <= 3; ++i) {
    char line[16];
    int len = snprintf(line, sizeof line, "%c%d\n", me_a ? 'A' : 'B', i);
    if (!me_a && read(to_b[0], &token, 1) != 1) Die("read");
    if (write(fd, line, (size_t)len) != len) Die("write");
    if (me_a) {
      if (write(to_b[1], "t", 1) != 1) Die("pass");
      if (read(to_a[0], &token, 1) != 1) Die("read");
    } else if (write(to_a[1], "t", 1) != 1) {
      Die("pass");
    }
  }
  if (fsync(fd) != 0) Die("fsync");
  if (close(fd) != 0) Die("close");
  if (!me_a) _exit(0);
  int st;
  waitpid(b, &st, 0);
  return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: probes write|raw|uring|mmap|osync|order DIR\n");
    return 2;
  }
  snprintf(dir_path, sizeof dir_path, "%s", argv[2]);
  const char* k = argv[1];
  if (!strcmp(k, "write")) return Write();
  if (!strcmp(k, "raw")) return RawWrite();
  if (!strcmp(k, "uring")) return Uring();
  if (!strcmp(k, "mmap")) return Mmap();
  if (!strcmp(k, "osync")) return Osync();
  if (!strcmp(k, "order")) return Order();
  fprintf(stderr, "probes: no kind '%s'\n", k);
  return 2;
}
