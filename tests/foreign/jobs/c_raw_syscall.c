/* At-most-once daily export whose save makes raw system calls, syscall(SYS_...), never the
 * libc wrappers: openat, write, fsync, close, renameat, then openat + fsync of the folder,
 * before the POST. The same recipe as c_rename.c, below libc.
 *
 *   c_raw_syscall correct   as above
 *   c_raw_syscall buggy     no fsync of the folder: the rename may be lost in a power cut
 *                           after the POST, and the retry POSTs the date again */
#define _GNU_SOURCE /* before any header: pwritev2, syncfs, O_TMPFILE */
#include <sys/syscall.h>

#include "export.h"

static long sys_check(long r, const char *what) {
  if (r < 0) die(what);
  return r;
}

static void save(const char *form, const char *buf, size_t n) {
  int fd = (int)sys_check(
      syscall(SYS_openat, AT_FDCWD, STATE ".tmp", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644),
      "openat " STATE ".tmp");
  for (size_t done = 0; done < n;)
    done += (size_t)sys_check(syscall(SYS_write, fd, buf + done, n - done), "write");
  sys_check(syscall(SYS_fsync, fd), "fsync " STATE ".tmp");
  sys_check(syscall(SYS_close, fd), "close");
  sys_check(syscall(SYS_renameat, AT_FDCWD, STATE ".tmp", AT_FDCWD, STATE), "renameat");
  if (strcmp(form, "correct") == 0) {
    int dir = (int)sys_check(syscall(SYS_openat, AT_FDCWD, ".", O_RDONLY | O_DIRECTORY), "open .");
    sys_check(syscall(SYS_fsync, dir), "fsync .");
    syscall(SYS_close, dir);
  }
}

int main(int argc, char **argv) { return run_export(argc, argv, "correct|buggy", save); }
