/* At-most-once daily export that makes its save durable with syncfs(2) or sync(2) instead of
 * fsync: write sent.json.tmp, sync the file system (the data and the new name), rename it
 * over sent.json, sync the file system again (the rename), then POST.
 *
 *   c_syncfs syncfs   syncfs(fd) before and after the rename
 *   c_syncfs sync     sync() before and after the rename
 *   c_syncfs buggy    syncfs before the rename only: the rename may be lost in a power cut
 *                     after the POST, and the retry POSTs the date again */
#define _GNU_SOURCE /* before any header: pwritev2, syncfs, O_TMPFILE */
#include "export.h"

static void sync_all(const char *form, int fd) {
  if (strcmp(form, "sync") == 0)
    sync();
  else if (syncfs(fd) != 0)
    die("syncfs");
}

static void save(const char *form, const char *buf, size_t n) {
  int fd = open(STATE ".tmp", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) die("open " STATE ".tmp");
  write_all(fd, buf, n);
  sync_all(form, fd);
  if (close(fd) != 0) die("close");
  if (rename(STATE ".tmp", STATE) != 0) die("rename");
  if (strcmp(form, "buggy") != 0) {
    int dir = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) die("open .");
    sync_all(form, dir);
    close(dir);
  }
}

int main(int argc, char **argv) { return run_export(argc, argv, "syncfs|sync|buggy", save); }
