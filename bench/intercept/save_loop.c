/* save_loop: the second workload of scripts/bench-intercept.sh, closer to a job's crash points
 * than kp-fsync-loop: N atomic saves of a 4 KiB state file, each the sequence a careful job
 * uses to replace a file:
 *
 *   open DIR/state.tmp O_CREAT|O_TRUNC|O_WRONLY, write 4 KiB, fsync, close,
 *   rename state.tmp onto DIR/state, fsync DIR
 *
 *   save_loop N DIR
 *
 * Six file-system operations a save (6 N in all), plus the directory's open and close around
 * the loop. Plain system calls through libc, no stdio in the loop. Exit 0 on success, 1 on an
 * I/O error, 2 on bad usage. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { kStateSize = 4096 };

static int Fail(const char* what, const char* path) {
  fprintf(stderr, "save_loop: %s %s: %s\n", what, path, strerror(errno));
  return 1;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: save_loop N DIR\n");
    return 2;
  }
  char* end = NULL;
  errno = 0;
  long n = strtol(argv[1], &end, 10);
  if (errno || end == argv[1] || *end || n < 0) {
    fprintf(stderr, "save_loop: N must be a non-negative integer, got '%s'\n", argv[1]);
    return 2;
  }
  const char* dir = argv[2];
  char tmp[4096], state[4096];
  if (snprintf(tmp, sizeof tmp, "%s/state.tmp", dir) >= (int)sizeof tmp ||
      snprintf(state, sizeof state, "%s/state", dir) >= (int)sizeof state) {
    fprintf(stderr, "save_loop: directory name too long\n");
    return 2;
  }
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return Fail("open", dir);
  char page[kStateSize];
  for (long i = 0; i < n; ++i) {
    memset(page, 'a' + (int)(i % 26), sizeof page);
    snprintf(page, sizeof page, "save %ld\n", i);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return Fail("open", tmp);
    size_t done = 0;
    while (done < sizeof page) {
      ssize_t w = write(fd, page + done, sizeof page - done);
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) return Fail("write", tmp);
      done += (size_t)w;
    }
    if (fsync(fd) != 0) return Fail("fsync", tmp);
    if (close(fd) != 0) return Fail("close", tmp);
    if (rename(tmp, state) != 0) return Fail("rename", tmp);
    if (fsync(dfd) != 0) return Fail("fsync", dir);
  }
  if (close(dfd) != 0) return Fail("close", dir);
  return 0;
}
