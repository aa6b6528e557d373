#include "fd_table.h"

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shim.h"

typedef struct {
  char *rel;  /* NULL: not tracked */
  dev_t dev;
  ino_t ino;
} kp_fd_entry;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static kp_fd_entry *g_entries; /* indexed by fd; guarded by g_mu */
static size_t g_cap;
static size_t g_count;         /* tracked entries: lookups skip the lock while it is 0 */

/* Both with g_mu held. */
static void kp_clear(size_t fd) {
  if (fd < g_cap && g_entries[fd].rel != NULL) {
    free(g_entries[fd].rel);
    g_entries[fd].rel = NULL;
    __atomic_fetch_sub(&g_count, 1, __ATOMIC_RELAXED);
  }
}
static int kp_grow(size_t fd) {
  if (fd < g_cap) return 0;
  size_t cap = g_cap != 0 ? g_cap : 64;
  while (cap <= fd) cap *= 2;
  kp_fd_entry *grown = realloc(g_entries, cap * sizeof *grown);
  if (grown == NULL) return -1;
  memset(grown + g_cap, 0, (cap - g_cap) * sizeof *grown);
  g_entries = grown;
  g_cap = cap;
  return 0;
}

void kp_fd_set(int fd, const char *rel) {
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) return;
  char *copy = strdup(rel);
  if (copy == NULL) return;
  pthread_mutex_lock(&g_mu);
  kp_clear((size_t)fd);
  if (kp_grow((size_t)fd) == 0) {
    g_entries[fd].rel = copy;
    g_entries[fd].dev = st.st_dev;
    g_entries[fd].ino = st.st_ino;
    __atomic_fetch_add(&g_count, 1, __ATOMIC_RELAXED);
    copy = NULL;
  }
  pthread_mutex_unlock(&g_mu);
  free(copy);
}

int kp_fd_lookup(int fd, char *rel, size_t cap) {
  if (fd < 0 || __atomic_load_n(&g_count, __ATOMIC_RELAXED) == 0) return 0;
  int found = 0;
  dev_t dev = 0;
  ino_t ino = 0;
  pthread_mutex_lock(&g_mu);
  if ((size_t)fd < g_cap && g_entries[fd].rel != NULL && strlen(g_entries[fd].rel) < cap) {
    strcpy(rel, g_entries[fd].rel);
    dev = g_entries[fd].dev;
    ino = g_entries[fd].ino;
    found = 1;
  }
  pthread_mutex_unlock(&g_mu);
  if (!found) return 0;
  struct stat st;
  if (fstat(fd, &st) == 0 && st.st_dev == dev && st.st_ino == ino) return 1;
  /* Closed behind our back and reused (or closed): forget it, unless it was re-set since. */
  pthread_mutex_lock(&g_mu);
  if ((size_t)fd < g_cap && g_entries[fd].rel != NULL && g_entries[fd].dev == dev &&
      g_entries[fd].ino == ino) {
    kp_clear((size_t)fd);
  }
  pthread_mutex_unlock(&g_mu);
  return 0;
}

void kp_fd_forget(int fd) {
  if (fd < 0 || __atomic_load_n(&g_count, __ATOMIC_RELAXED) == 0) return;
  pthread_mutex_lock(&g_mu);
  kp_clear((size_t)fd);
  pthread_mutex_unlock(&g_mu);
}

void kp_fd_dup(int from, int to) {
  if (from < 0 || to < 0 || from == to) return;
  if (__atomic_load_n(&g_count, __ATOMIC_RELAXED) == 0) return;
  pthread_mutex_lock(&g_mu);
  kp_clear((size_t)to);
  if ((size_t)from < g_cap && g_entries[from].rel != NULL && kp_grow((size_t)to) == 0) {
    char *copy = strdup(g_entries[from].rel);
    if (copy != NULL) {
      g_entries[to] = g_entries[from];
      g_entries[to].rel = copy;
      __atomic_fetch_add(&g_count, 1, __ATOMIC_RELAXED);
    }
  }
  pthread_mutex_unlock(&g_mu);
}

/* The part of `rel` below `dir` ("" for `dir` itself, "/x" below it), or NULL. */
static const char *kp_below(const char *rel, const char *dir) {
  size_t n = strlen(dir);
  if (strcmp(dir, ".") == 0 || strncmp(rel, dir, n) != 0) return NULL;
  return rel[n] == '\0' || rel[n] == '/' ? rel + n : NULL;
}

/* With g_mu held: entry fd now at `prefix` + `rest`, or forgotten when prefix is NULL. */
static void kp_rebase(size_t fd, const char *prefix, const char *rest) {
  if (prefix == NULL) {
    kp_clear(fd);
    return;
  }
  size_t a = strlen(prefix), b = strlen(rest);
  char *moved = malloc(a + b + 1);
  if (moved == NULL) {
    kp_clear(fd);
    return;
  }
  memcpy(moved, prefix, a);
  memcpy(moved + a, rest, b + 1);
  free(g_entries[fd].rel);
  g_entries[fd].rel = moved;
}

void kp_fd_rename(const char *from, const char *to, int exchange) {
  if (from == NULL && !exchange) return;
  if (__atomic_load_n(&g_count, __ATOMIC_RELAXED) == 0) return;
  pthread_mutex_lock(&g_mu);
  for (size_t fd = 0; fd < g_cap; ++fd) {
    const char *rel = g_entries[fd].rel;
    if (rel == NULL) continue;
    const char *rest;
    if (from != NULL && (rest = kp_below(rel, from)) != NULL) {
      kp_rebase(fd, to, rest);
    } else if (exchange && to != NULL && (rest = kp_below(rel, to)) != NULL) {
      kp_rebase(fd, from, rest);
    }
  }
  pthread_mutex_unlock(&g_mu);
}

void kp_fd_forget_range(unsigned lo, unsigned hi) {
  if (__atomic_load_n(&g_count, __ATOMIC_RELAXED) == 0) return;
  pthread_mutex_lock(&g_mu);
  for (size_t fd = lo; fd < g_cap && fd <= hi; ++fd) kp_clear(fd);
  pthread_mutex_unlock(&g_mu);
}

void kp_fd_adopt_inherited(void) {
  DIR *dir = opendir("/proc/self/fd");
  if (dir == NULL) return;
  int own = dirfd(dir);
  struct dirent *entry;
  while ((entry = readdir(dir)) != NULL) {
    char *end;
    long fd = strtol(entry->d_name, &end, 10);
    if (*end != '\0' || end == entry->d_name || fd == own || fd < 0 || fd > 1 << 30) continue;
    char link[64], target[KP_PATH_MAX], rel[KP_PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%ld", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n <= 0 || target[0] != '/') continue;  /* socket:[..], pipe:[..], anon_inode:.. */
    target[n] = '\0';
    struct stat st;
    if (fstat((int)fd, &st) != 0 || (S_ISREG(st.st_mode) && st.st_nlink == 0)) continue;
    if (kp_relpath(target, rel, sizeof rel)) kp_fd_set((int)fd, rel);
  }
  closedir(dir);
}

void kp_fd_atfork_prepare(void) { pthread_mutex_lock(&g_mu); }
void kp_fd_atfork_parent(void) { pthread_mutex_unlock(&g_mu); }
void kp_fd_atfork_child(void) { pthread_mutex_init(&g_mu, NULL); }
