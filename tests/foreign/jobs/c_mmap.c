/* At-most-once daily export that keeps its state in a file of fixed size (4096 bytes: the
 * JSON, then spaces) mapped MAP_SHARED: the new state is stored through the mapping and
 * msync'ed, before the POST. The file is made once, by the plain recipe (temporary file,
 * fsync, rename, fsync of the folder), holding {"sent":[]}.
 *
 *   c_mmap correct          msync(MS_SYNC): the stores are on disk when it returns
 *   c_mmap buggy-async      msync(MS_ASYNC): writeback is only scheduled; a power cut after
 *                           the POST brings the old state back, and the retry POSTs again
 *   c_mmap buggy-nomsync    no msync at all: the same */
#define _GNU_SOURCE /* before any header: pwritev2, syncfs, O_TMPFILE */
#include <sys/mman.h>

#include "export.h"

static void create_empty_state(void) {
  char page[STATE_MAX];
  memset(page, ' ', sizeof page);
  memcpy(page, "{\"sent\":[]}", 11);
  page[STATE_MAX - 1] = '\n';
  int fd = open(STATE ".tmp", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) die("open " STATE ".tmp");
  write_all(fd, page, sizeof page);
  if (fsync(fd) != 0) die("fsync " STATE ".tmp");
  close(fd);
  if (rename(STATE ".tmp", STATE) != 0) die("rename");
  int dir = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0 || fsync(dir) != 0) die("fsync .");
  close(dir);
}

static void save(const char *form, const char *buf, size_t n) {
  if (access(STATE, F_OK) != 0) create_empty_state();
  char page[STATE_MAX];
  memset(page, ' ', sizeof page);
  memcpy(page, buf, n);
  page[STATE_MAX - 1] = '\n';
  int fd = open(STATE, O_RDWR | O_CLOEXEC);
  if (fd < 0) die("open " STATE);
  char *map = mmap(NULL, STATE_MAX, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) die("mmap");
  memcpy(map, page, STATE_MAX);
  if (strcmp(form, "correct") == 0 && msync(map, STATE_MAX, MS_SYNC) != 0) die("msync");
  if (strcmp(form, "buggy-async") == 0 && msync(map, STATE_MAX, MS_ASYNC) != 0) die("msync");
  munmap(map, STATE_MAX);
  close(fd);
}

int main(int argc, char **argv) {
  return run_export(argc, argv, "correct|buggy-async|buggy-nomsync", save);
}
