/* At-most-once daily export whose temporary file is opened O_SYNC or O_DSYNC: each write is
 * durable when it returns, with no fsync call. Then rename over sent.json and fsync of the
 * folder, before the POST.
 *
 *   c_osync osync    open(O_SYNC), write, close, rename, fsync(folder)
 *   c_osync odsync   the same with O_DSYNC (data and the size needed to read it back)
 *   c_osync buggy    a plain open: no O_SYNC and no fsync. The folder's fsync makes the new
 *                    name durable but not its content: after a power cut sent.json may be
 *                    empty, and the retry POSTs the date again */
#define _GNU_SOURCE /* before any header: pwritev2, syncfs, O_TMPFILE */
#include "export.h"

static void save(const char *form, const char *buf, size_t n) {
  int sync_flag = strcmp(form, "osync") == 0 ? O_SYNC : strcmp(form, "odsync") == 0 ? O_DSYNC : 0;
  int fd = open(STATE ".tmp", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | sync_flag, 0644);
  if (fd < 0) die("open " STATE ".tmp");
  write_all(fd, buf, n);
  if (close(fd) != 0) die("close");
  if (rename(STATE ".tmp", STATE) != 0) die("rename");
  int dir = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0 || fsync(dir) != 0) die("fsync .");
  close(dir);
}

int main(int argc, char **argv) { return run_export(argc, argv, "osync|odsync|buggy", save); }
