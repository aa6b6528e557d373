/* At-most-once daily export, plain libc: the new state goes to sent.json.tmp (open, write,
 * fsync, close), is renamed over sent.json, and the folder is fsync'ed, then the report is
 * POSTed. The recipe of docs/writing-a-job.md, in C.
 *
 *   c_rename correct   as above
 *   c_rename buggy     no fsync of the folder: the rename may be lost in a power cut after
 *                      the POST, and the retry POSTs the date again
 *
 * Built twice (tests/foreign/CMakeLists.txt): dynamically, where the syscall shim sees every
 * call, and with -static, where it sees none. */
#define _GNU_SOURCE /* before any header: pwritev2, syncfs, O_TMPFILE */
#include "export.h"

static void save(const char *form, const char *buf, size_t n) {
  int fd = open(STATE ".tmp", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) die("open " STATE ".tmp");
  write_all(fd, buf, n);
  if (fsync(fd) != 0) die("fsync " STATE ".tmp");
  if (close(fd) != 0) die("close");
  if (rename(STATE ".tmp", STATE) != 0) die("rename");
  if (strcmp(form, "correct") == 0) {
    int dir = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0 || fsync(dir) != 0) die("fsync .");
    close(dir);
  }
}

int main(int argc, char **argv) { return run_export(argc, argv, "correct|buggy", save); }
