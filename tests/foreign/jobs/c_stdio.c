/* At-most-once daily export through stdio: fopen("w") of sent.json.tmp, fwrite, fflush,
 * fsync(fileno(f)), fclose, rename over sent.json, fsync of the folder, then POST.
 *
 *   c_stdio correct          as above
 *   c_stdio buggy-nofsync    fflush but no fsync: the folder's fsync makes the new name
 *                            durable but not its content; after a power cut sent.json may be
 *                            empty, and the retry POSTs the date again
 *   c_stdio buggy-inplace    fopen("w") of sent.json itself (O_TRUNC), fwrite, fclose, no
 *                            fsync: a power cut after the POST brings the old state back (or
 *                            a torn one), and the retry POSTs again */
#define _GNU_SOURCE /* before any header: pwritev2, syncfs, O_TMPFILE */
#include "export.h"

static void save(const char *form, const char *buf, size_t n) {
  int inplace = strcmp(form, "buggy-inplace") == 0;
  FILE *f = fopen(inplace ? STATE : STATE ".tmp", "w");
  if (f == NULL) die("fopen");
  if (fwrite(buf, 1, n, f) != n || fflush(f) != 0) die("fwrite");
  if (strcmp(form, "correct") == 0 && fsync(fileno(f)) != 0) die("fsync");
  if (fclose(f) != 0) die("fclose");
  if (inplace) return;
  if (rename(STATE ".tmp", STATE) != 0) die("rename");
  int dir = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0 || fsync(dir) != 0) die("fsync .");
  close(dir);
}

int main(int argc, char **argv) {
  return run_export(argc, argv, "correct|buggy-nofsync|buggy-inplace", save);
}
