/* Writes outside the sandbox (docs/syscall-shim.md, "Writes outside the sandbox"): an operation
 * that created or changed a file whose real path is not under KILLPOINT_WORKDIR is reported to
 * the harness one way, "OUTSIDE <op> <pid> <path>" (protocol v1.5), once per op and path in a
 * process. Only after the operation succeeded: a refused write changed nothing. Never a crash
 * point, never a round trip. Pseudo file systems (/dev but /dev/shm, /proc, /sys) and what is
 * not a regular file or a directory (a pipe, a socket, a terminal, a device) are never reported.
 * Call everything here with the guard held. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "channel.h"
#include "shim.h"

static int kp_has_prefix(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

int kp_outside_ignored(const char *abs) {
  if (abs[0] != '/') return 1; /* "pipe:[123]", "socket:[4]", "anon_inode:..." */
  if (kp_has_prefix(abs, "/dev/shm/")) return 0;
  return kp_has_prefix(abs, "/dev/") || strcmp(abs, "/dev") == 0 || kp_has_prefix(abs, "/proc/") ||
         kp_has_prefix(abs, "/sys/");
}

/* 1 when the absolute path `real` is in the sandbox (its lexical form or its realpath). */
static int kp_real_inside(const char *real) {
  char rel[KP_PATH_MAX];
  return kp_relpath(real, rel, sizeof rel);
}

/* `abs` with its parent directory's symlinks resolved (realpath of the parent, then the last
 * component): the file itself may be gone (unlink) or a symlink (whose link is what changed).
 * 0, or -1 when the parent cannot be resolved (then `abs` is taken as it is). */
static int kp_real_parent(const char *abs, char *out, size_t cap) {
  const char *slash = strrchr(abs, '/');
  if (slash == NULL || slash == abs) return -1;
  char parent[KP_PATH_MAX];
  size_t n = (size_t)(slash - abs);
  if (n >= sizeof parent) return -1;
  memcpy(parent, abs, n);
  parent[n] = '\0';
  char real[PATH_MAX];
  if (realpath(parent, real) == NULL) return -1;
  int w = snprintf(out, cap, "%s/%s", strcmp(real, "/") == 0 ? "" : real, slash + 1);
  return w > 0 && (size_t)w < cap ? 0 : -1;
}

void kp_outside_path(const char *op, int dirfd, const char *path) {
  if (!kp_own_process() || path == NULL) return;
  char abs[KP_PATH_MAX], rel[KP_PATH_MAX];
  if (kp_resolve(dirfd, path, abs, sizeof abs) != 0) return;
  if (kp_relpath(abs, rel, sizeof rel) || kp_outside_ignored(abs)) return;
  char real[KP_PATH_MAX];
  const char *shown = abs;
  if (kp_real_parent(abs, real, sizeof real) == 0) {
    if (kp_real_inside(real) || kp_outside_ignored(real)) return; /* a symlink into the sandbox */
    shown = real;
  }
  kp_channel_outside(op, shown);
}

void kp_outside_fd(const char *op, int fd, const char *abs) {
  if (!kp_own_process()) return;
  /* /dev/stdout, /dev/fd/N, /proc/self/fd/N: what the fd stands for is the harness's
   * (captured output) or the job's own, opened and reported where it was opened. */
  if (abs != NULL && abs[0] != '\0' && kp_outside_ignored(abs)) return;
  char link[64], real[KP_PATH_MAX];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, real, sizeof real - 1);
  if (n <= 0 || (size_t)n >= sizeof real - 1) return;
  real[n] = '\0';
  if (kp_outside_ignored(real) || kp_real_inside(real)) return;
  struct stat st;
  if (fstat(fd, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) return;
  kp_channel_outside(op, real);
}
