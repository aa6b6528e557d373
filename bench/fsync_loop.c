/* kp-fsync-loop: the workload of scripts/bench-shim.sh. Appends 64 bytes to one file and
 * fsyncs it, N times: the worst case for the syscall shim, two crash points per 64 bytes.
 *
 *   kp-fsync-loop [N] [DIR]
 *
 * N defaults to 1000. The file is DIR/fsync-loop.dat, truncated at open; DIR defaults to
 * $KILLPOINT_WORKDIR (set by the harness). Plain write(2)/fsync(2), no stdio, so that the
 * shim sees every call: open:fsync-loop.dat, then N times write: and fsync:, then close:.
 * Exit 0 on success, 1 on an I/O error, 2 on bad usage. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { kRecord = 64 };

static int Fail(const char* what, const char* path) {
  fprintf(stderr, "kp-fsync-loop: %s %s: %s\n", what, path, strerror(errno));
  return 1;
}

int main(int argc, char** argv) {
  long n = 1000;
  if (argc > 3) {
    fprintf(stderr, "usage: kp-fsync-loop [N] [DIR]\n");
    return 2;
  }
  if (argc > 1) {
    char* end = NULL;
    errno = 0;
    n = strtol(argv[1], &end, 10);
    if (errno || end == argv[1] || *end || n < 0) {
      fprintf(stderr, "kp-fsync-loop: N must be a non-negative integer, got '%s'\n", argv[1]);
      return 2;
    }
  }
  const char* dir = argc > 2 ? argv[2] : getenv("KILLPOINT_WORKDIR");
  if (!dir || !*dir) {
    fprintf(stderr, "kp-fsync-loop: no directory: pass DIR or set KILLPOINT_WORKDIR\n");
    return 2;
  }
  char path[4096];
  if (snprintf(path, sizeof path, "%s/fsync-loop.dat", dir) >= (int)sizeof path) {
    fprintf(stderr, "kp-fsync-loop: directory name too long\n");
    return 2;
  }

  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return Fail("open", path);
  char record[kRecord];
  for (long i = 0; i < n; ++i) {
    /* 63 printable bytes and a newline: "000042 xxxx...\n" */
    memset(record, 'x', sizeof record);
    int len = snprintf(record, sizeof record, "%06ld ", i % 1000000);
    record[len] = 'x';
    record[kRecord - 1] = '\n';
    size_t done = 0;
    while (done < sizeof record) {
      ssize_t w = write(fd, record + done, sizeof record - done);
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) return Fail("write", path);
      done += (size_t)w;
    }
    if (fsync(fd) != 0) return Fail("fsync", path);
  }
  if (close(fd) != 0) return Fail("close", path);
  return 0;
}
