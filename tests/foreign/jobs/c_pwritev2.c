/* At-most-once daily export whose temporary file is written with one
 * pwritev2(..., RWF_DSYNC): that write is durable when it returns (the data and the size,
 * as O_DSYNC for one call), with no fsync call. Then rename over sent.json and fsync of the
 * folder, before the POST.
 *
 *   c_pwritev2 correct   pwritev2 with RWF_DSYNC
 *   c_pwritev2 buggy     pwritev2 with no flags: the folder's fsync makes the new name durable
 *                        but not its content; after a power cut sent.json may be empty, and
 *                        the retry POSTs the date again */
#define _GNU_SOURCE /* before any header: pwritev2, syncfs, O_TMPFILE */
#include <sys/uio.h>

#include "export.h"

static void save(const char *form, const char *buf, size_t n) {
  int fd = open(STATE ".tmp", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) die("open " STATE ".tmp");
  struct iovec iov = {.iov_base = (void *)buf, .iov_len = n};
  int flags = strcmp(form, "correct") == 0 ? RWF_DSYNC : 0;
  if (pwritev2(fd, &iov, 1, 0, flags) != (ssize_t)n) die("pwritev2");
  if (close(fd) != 0) die("close");
  if (rename(STATE ".tmp", STATE) != 0) die("rename");
  int dir = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0 || fsync(dir) != 0) die("fsync .");
  close(dir);
}

int main(int argc, char **argv) { return run_export(argc, argv, "correct|buggy", save); }
