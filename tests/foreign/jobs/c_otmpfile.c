/* At-most-once daily export that writes its new state to an unnamed file (open(".",
 * O_TMPFILE)), fsyncs it, gives it a name with linkat through /proc/self/fd, renames that
 * over sent.json and fsyncs the folder, before the POST. No half-written file ever has a name.
 *
 *   c_otmpfile correct   as above
 *   c_otmpfile buggy     no fsync of the unnamed file: the folder's fsync makes its name
 *                        durable but not its content; after a power cut sent.json may be
 *                        empty, and the retry POSTs the date again */
#define _GNU_SOURCE /* before any header: pwritev2, syncfs, O_TMPFILE */
#include "export.h"

static void save(const char *form, const char *buf, size_t n) {
  int fd = open(".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
  if (fd < 0) die("open O_TMPFILE");
  write_all(fd, buf, n);
  if (strcmp(form, "correct") == 0 && fsync(fd) != 0) die("fsync");
  char proc[64];
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  unlink(STATE ".new"); /* left by a run killed between the link and the rename */
  if (linkat(AT_FDCWD, proc, AT_FDCWD, STATE ".new", AT_SYMLINK_FOLLOW) != 0) die("linkat");
  close(fd);
  if (rename(STATE ".new", STATE) != 0) die("rename");
  int dir = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0 || fsync(dir) != 0) die("fsync .");
  close(dir);
}

int main(int argc, char **argv) { return run_export(argc, argv, "correct|buggy", save); }
