/* At-most-once daily export whose save goes through io_uring, set up with raw system calls
 * (io_uring_setup, io_uring_enter; no liburing): IORING_OP_OPENAT, WRITE, FSYNC, CLOSE of
 * sent.json.tmp, RENAMEAT over sent.json, OPENAT + FSYNC + CLOSE of the folder, one request
 * at a time, then the POST. No file system call of the save is a system call of its own.
 *
 *   c_io_uring correct   as above
 *   c_io_uring buggy     no IORING_OP_FSYNC at all: a power cut after the POST may bring the
 *                        old state back (or an empty one), and the retry POSTs again */
#define _GNU_SOURCE /* before any header: pwritev2, syncfs, O_TMPFILE */
#include <linux/io_uring.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "export.h"

static int ring;
static unsigned *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
static struct io_uring_sqe *sqes;
static struct io_uring_cqe *cqes;

static void ring_setup(void) {
  struct io_uring_params p;
  memset(&p, 0, sizeof p);
  ring = (int)syscall(__NR_io_uring_setup, 4, &p);
  if (ring < 0) die("io_uring_setup");
  size_t sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned);
  size_t cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
  if (p.features & IORING_FEAT_SINGLE_MMAP) sq_len = cq_len = sq_len > cq_len ? sq_len : cq_len;
  char *sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED, ring, IORING_OFF_SQ_RING);
  char *cq = (p.features & IORING_FEAT_SINGLE_MMAP)
                 ? sq
                 : mmap(NULL, cq_len, PROT_READ | PROT_WRITE, MAP_SHARED, ring, IORING_OFF_CQ_RING);
  sqes = mmap(NULL, p.sq_entries * sizeof *sqes, PROT_READ | PROT_WRITE, MAP_SHARED, ring,
              IORING_OFF_SQES);
  if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED) die("mmap ring");
  sq_tail = (unsigned *)(sq + p.sq_off.tail), sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
  sq_array = (unsigned *)(sq + p.sq_off.array);
  cq_head = (unsigned *)(cq + p.cq_off.head), cq_tail = (unsigned *)(cq + p.cq_off.tail);
  cq_mask = (unsigned *)(cq + p.cq_off.ring_mask);
  cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
}

/* Submits one request, waits for it and returns its result (a negative errno on failure). */
static int ring_do(struct io_uring_sqe sqe, const char *what) {
  unsigned tail = *sq_tail, i = tail & *sq_mask;
  sqes[i] = sqe;
  sq_array[i] = i;
  __atomic_store_n(sq_tail, tail + 1, __ATOMIC_RELEASE);
  if (syscall(__NR_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
    die("io_uring_enter");
  unsigned head = *cq_head;
  if (head == __atomic_load_n(cq_tail, __ATOMIC_ACQUIRE)) die("io_uring: no completion");
  int res = cqes[head & *cq_mask].res;
  __atomic_store_n(cq_head, head + 1, __ATOMIC_RELEASE);
  if (res < 0) {
    errno = -res;
    die(what);
  }
  return res;
}

static void save(const char *form, const char *buf, size_t n) {
  int fsyncs = strcmp(form, "correct") == 0;
  ring_setup();
  int fd = ring_do((struct io_uring_sqe){.opcode = IORING_OP_OPENAT,
                                         .fd = AT_FDCWD,
                                         .addr = (unsigned long)STATE ".tmp",
                                         .len = 0644,
                                         .open_flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC},
                   "openat " STATE ".tmp");
  for (size_t done = 0; done < n;)
    done += (size_t)ring_do((struct io_uring_sqe){.opcode = IORING_OP_WRITE,
                                                  .fd = fd,
                                                  .addr = (unsigned long)(buf + done),
                                                  .len = (unsigned)(n - done),
                                                  .off = done},
                            "write");
  if (fsyncs) ring_do((struct io_uring_sqe){.opcode = IORING_OP_FSYNC, .fd = fd}, "fsync");
  ring_do((struct io_uring_sqe){.opcode = IORING_OP_CLOSE, .fd = fd}, "close");
  ring_do((struct io_uring_sqe){.opcode = IORING_OP_RENAMEAT,
                                .fd = AT_FDCWD,
                                .addr = (unsigned long)STATE ".tmp",
                                .len = (unsigned)AT_FDCWD,
                                .addr2 = (unsigned long)STATE},
          "renameat");
  int dir = ring_do((struct io_uring_sqe){.opcode = IORING_OP_OPENAT,
                                          .fd = AT_FDCWD,
                                          .addr = (unsigned long)".",
                                          .open_flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC},
                    "open .");
  if (fsyncs) ring_do((struct io_uring_sqe){.opcode = IORING_OP_FSYNC, .fd = dir}, "fsync .");
  ring_do((struct io_uring_sqe){.opcode = IORING_OP_CLOSE, .fd = dir}, "close .");
  close(ring);
}

int main(int argc, char **argv) { return run_export(argc, argv, "correct|buggy", save); }
