/* Path arithmetic: relative paths made absolute against the cwd or a directory fd, lexical
 * normalization, and the sandbox-relative form used in crash point names. Nothing here
 * resolves symlinks of the file itself (it may not exist yet). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fd_table.h"
#include "shim.h"

int kp_normalize(const char *in, char *out, size_t cap) {
  if (in[0] != '/' || cap < 2) return -1;
  size_t len = 1;
  out[0] = '/';
  const char *p = in;
  while (*p != '\0') {
    while (*p == '/') ++p;
    if (*p == '\0') break;
    const char *end = p;
    while (*end != '\0' && *end != '/') ++end;
    size_t n = (size_t)(end - p);
    if (n == 1 && p[0] == '.') {
      /* nothing */
    } else if (n == 2 && p[0] == '.' && p[1] == '.') {
      while (len > 1 && out[len - 1] != '/') --len; /* drop the last component */
      if (len > 1) --len;                           /* and its '/' */
    } else {
      size_t need = (len > 1 ? 1 : 0) + n;
      if (len + need + 1 > cap) return -1;
      if (len > 1) out[len++] = '/';
      memcpy(out + len, p, n);
      len += n;
    }
    p = end;
  }
  out[len] = '\0';
  return 0;
}

/* The absolute path of directory fd `dirfd`: the fd table's record, else /proc. */
static int kp_dir_path(int dirfd, char *out, size_t cap) {
  char rel[KP_PATH_MAX];
  if (kp_fd_lookup(dirfd, rel, sizeof rel)) {
    const char *root = kp_workdir();
    int n = strcmp(rel, ".") == 0
                ? snprintf(out, cap, "%s", root)
                : snprintf(out, cap, "%s/%s", strcmp(root, "/") == 0 ? "" : root, rel);
    return n > 0 && (size_t)n < cap ? 0 : -1;
  }
  char link[64];
  snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
  ssize_t n = readlink(link, out, cap - 1);
  if (n <= 0 || out[0] != '/') return -1;
  out[n] = '\0';
  return 0;
}

int kp_resolve(int dirfd, const char *path, char *out, size_t cap) {
  if (path == NULL || path[0] == '\0') return -1;
  if (path[0] == '/') return kp_normalize(path, out, cap);
  char base[KP_PATH_MAX];
  if (dirfd == AT_FDCWD) {
    if (getcwd(base, sizeof base) == NULL) return -1;
  } else if (kp_dir_path(dirfd, base, sizeof base) != 0) {
    return -1;
  }
  size_t a = strlen(base), b = strlen(path);
  if (a + 1 + b >= KP_PATH_MAX) return -1;
  char joined[KP_PATH_MAX];
  memcpy(joined, base, a);
  joined[a] = '/';
  memcpy(joined + a + 1, path, b + 1);
  return kp_normalize(joined, out, cap);
}

static int kp_relpath_under(const char *abs, const char *root, char *rel, size_t cap) {
  size_t n = strlen(root);
  const char *rest;
  if (n == 0) return 0;
  if (strcmp(root, "/") == 0) {
    rest = abs + 1;
  } else if (strncmp(abs, root, n) == 0 && (abs[n] == '\0' || abs[n] == '/')) {
    rest = abs[n] == '\0' ? abs + n : abs + n + 1;
  } else {
    return 0;
  }
  if (*rest == '\0') rest = ".";
  if (strlen(rest) >= cap) return 0;
  strcpy(rel, rest);
  return 1;
}

int kp_relpath(const char *abs, char *rel, size_t cap) {
  if (kp_relpath_under(abs, kp_workdir(), rel, cap)) return 1;
  return strcmp(kp_workdir(), kp_workdir_real()) != 0 &&
         kp_relpath_under(abs, kp_workdir_real(), rel, cap);
}

int kp_sandbox_path(int dirfd, const char *path, char *rel, size_t cap, char *abs) {
  char buf[KP_PATH_MAX];
  char *target = abs != NULL ? abs : buf;
  if (kp_resolve(dirfd, path, target, KP_PATH_MAX) != 0) {
    if (abs != NULL) abs[0] = '\0';
    return 0;
  }
  return kp_relpath(target, rel, cap);
}
