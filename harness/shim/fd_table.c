#include "fd_table.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "shim.h"

typedef struct {
  char *rel; /* NULL: not tracked */
  dev_t dev;
  ino_t ino;
  int writable;          /* opened O_WRONLY or O_RDWR: it can write without the shim seeing */
  int flags;             /* KP_FD_READABLE, KP_FD_APPEND */
  int reader;            /* a hidden fd open for reading on the same file (kp_fd_reader), + 1;
                            0: none */
  off_t size;            /* the file's size and mtime after the last operation the shim saw */
  struct timespec mtime; /* on it in this process (its stamp) */
  int mapped;            /* this process mapped the file shared and writable (kp_fd_mapped) */
} kp_fd_entry;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static kp_fd_entry *g_entries; /* indexed by fd; guarded by g_mu */
static size_t g_cap;
static size_t g_count; /* tracked entries: lookups skip the lock while it is 0 */

/* With g_mu held: the job closed fds [lo, hi] or dup'ed over them: a hidden reader among them
 * is the job's now (or closed), never to be used or closed by the shim. */
static void kp_drop_readers(size_t lo, size_t hi) {
  for (size_t fd = 0; fd < g_cap; ++fd) {
    size_t reader = (size_t)g_entries[fd].reader;
    if (reader != 0 && reader - 1 >= lo && reader - 1 <= hi) g_entries[fd].reader = 0;
  }
}

/* Both with g_mu held. */
static void kp_clear(size_t fd) {
  if (fd < g_cap && g_entries[fd].rel != NULL) {
    free(g_entries[fd].rel);
    g_entries[fd].rel = NULL;
    if (g_entries[fd].reader != 0) kp_real_close(g_entries[fd].reader - 1);
    g_entries[fd].reader = 0;
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

/* With g_mu held: every entry on st's file takes st's size and mtime as its stamp. */
static void kp_stamp_locked(const struct stat *st) {
  for (size_t fd = 0; fd < g_cap; ++fd) {
    kp_fd_entry *e = &g_entries[fd];
    if (e->rel == NULL || e->dev != st->st_dev || e->ino != st->st_ino) continue;
    e->size = st->st_size;
    e->mtime = st->st_mtim;
  }
}

static void kp_publish(int fd, const struct stat *st);

/* `publish`: an open the shim saw (not an inherited fd): its stamp goes on the file too. */
static void kp_fd_record(int fd, const char *rel, int publish) {
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) return;
  int status = fcntl(fd, F_GETFL);
  int mode = status & O_ACCMODE;
  char *copy = strdup(rel);
  if (copy == NULL) return;
  pthread_mutex_lock(&g_mu);
  kp_clear((size_t)fd);
  if (kp_grow((size_t)fd) == 0) {
    g_entries[fd].rel = copy;
    g_entries[fd].reader = 0;
    g_entries[fd].dev = st.st_dev;
    g_entries[fd].ino = st.st_ino;
    g_entries[fd].writable = S_ISREG(st.st_mode) && (mode == O_WRONLY || mode == O_RDWR);
    g_entries[fd].flags = (status >= 0 && mode != O_WRONLY ? KP_FD_READABLE : 0) |
                          (status >= 0 && (status & O_APPEND) ? KP_FD_APPEND : 0);
    g_entries[fd].mapped = 0;
    for (size_t other = 0; other < g_cap; ++other) { /* a file mapped before this open */
      const kp_fd_entry *e = &g_entries[other];
      if (other != (size_t)fd && e->rel != NULL && e->mapped && e->dev == st.st_dev &&
          e->ino == st.st_ino)
        g_entries[fd].mapped = 1;
    }
    __atomic_fetch_add(&g_count, 1, __ATOMIC_RELAXED);
    copy = NULL;
  }
  kp_stamp_locked(&st); /* an O_TRUNC open changes the file under this process's other fds */
  int writable = publish && copy == NULL && g_entries[fd].writable;
  pthread_mutex_unlock(&g_mu);
  free(copy);
  if (writable) kp_publish(fd, &st); /* a seen open (O_TRUNC): no earlier stamp stands */
}

void kp_fd_set(int fd, const char *rel) { kp_fd_record(fd, rel, 1); }

void kp_fd_stamp(const struct stat *st) {
  if (__atomic_load_n(&g_count, __ATOMIC_RELAXED) == 0) return;
  pthread_mutex_lock(&g_mu);
  kp_stamp_locked(st);
  pthread_mutex_unlock(&g_mu);
}

/* The stamp every process's shim leaves on the file itself after a change it saw, so that a
 * process whose child wrote through an inherited fd with seen calls ("cat in" in
 * "{ cat in; printf x; } > out") does not take the child's bytes for unseen ones. An extended
 * attribute changes the ctime, never the size or the mtime. Where the file system has none,
 * such a change is reported as unseen: over-reported, never missed. */
#define KP_SEEN_XATTR "user.killpoint.seen"

static void kp_publish(int fd, const struct stat *st) {
  char text[64];
  int n = snprintf(text, sizeof text, "%lld %lld %ld", (long long)st->st_size,
                   (long long)st->st_mtim.tv_sec, (long)st->st_mtim.tv_nsec);
  if (n > 0 && (size_t)n < sizeof text) (void)fsetxattr(fd, KP_SEEN_XATTR, text, (size_t)n, 0);
}

/* True when the change on fd's file was seen by a shim (this process's or another's). The
 * size the last seen change left goes to *size when it is larger. */
static int kp_published(int fd, const struct stat *st, off_t *size) {
  char text[64], now[64];
  ssize_t n = fgetxattr(fd, KP_SEEN_XATTR, text, sizeof text - 1);
  if (n <= 0) return 0;
  text[n] = '\0';
  long long published = strtoll(text, NULL, 10);
  if (published > *size && published <= st->st_size) *size = (off_t)published;
  snprintf(now, sizeof now, "%lld %lld %ld", (long long)st->st_size, (long long)st->st_mtim.tv_sec,
           (long)st->st_mtim.tv_nsec);
  return strcmp(text, now) == 0;
}

int kp_fd_stamp_fd_stat(int fd, struct stat *st) {
  if (fd < 0 || fstat(fd, st) != 0) return 0;
  kp_fd_stamp(st);
  if (S_ISREG(st->st_mode)) kp_publish(fd, st);
  return 1;
}

void kp_fd_stamp_fd(int fd) {
  struct stat st;
  kp_fd_stamp_fd_stat(fd, &st);
}

/* The entry of fd, when it is tracked, open for writing, and its path fits `cap`. */
static int kp_writable_entry(int fd, char *rel, size_t cap, kp_fd_entry *was) {
  if (fd < 0 || __atomic_load_n(&g_count, __ATOMIC_RELAXED) == 0) return 0;
  int found = 0;
  pthread_mutex_lock(&g_mu);
  if ((size_t)fd < g_cap && g_entries[fd].rel != NULL && g_entries[fd].writable &&
      strlen(g_entries[fd].rel) < cap) {
    *was = g_entries[fd];
    strcpy(rel, was->rel);
    found = 1;
  }
  pthread_mutex_unlock(&g_mu);
  return found;
}

void kp_fd_mapped(int fd) {
  struct stat st;
  if (fd < 0 || __atomic_load_n(&g_count, __ATOMIC_RELAXED) == 0 || fstat(fd, &st) != 0) return;
  pthread_mutex_lock(&g_mu);
  for (size_t i = 0; i < g_cap; ++i) {
    kp_fd_entry *e = &g_entries[i];
    if (e->rel != NULL && e->dev == st.st_dev && e->ino == st.st_ino) e->mapped = 1;
  }
  pthread_mutex_unlock(&g_mu);
}

static int kp_unseen_since(int fd, const kp_fd_entry *was, const struct stat *st,
                           unsigned long long *grown) {
  if (st->st_dev != was->dev || st->st_ino != was->ino) return 0;
  if (st->st_size == was->size && st->st_mtim.tv_sec == was->mtime.tv_sec &&
      st->st_mtim.tv_nsec == was->mtime.tv_nsec) {
    return 0;
  }
  if (was->mapped && st->st_size == was->size) {
    /* Stores through the process's own shared mapping (SQLite's -shm): no crash point, and the
     * kernel moves the mtime when it pleases (at a write fault after writeback, in the coarse
     * clock's tick or the next), so reporting it would depend on timing. A new size is still
     * reported. */
    kp_fd_stamp(st);
    return 0;
  }
  off_t base = was->size; /* or the size another process's seen write left, if larger */
  int seen = kp_published(fd, st, &base);
  *grown = st->st_size > base ? (unsigned long long)(st->st_size - base) : 0;
  kp_fd_stamp(st);
  if (!seen) kp_publish(fd, st); /* reported once, by this process or any other */
  return !seen;
}

int kp_fd_unseen(int fd, char *rel, size_t cap, unsigned long long *grown) {
  kp_fd_entry was;
  struct stat st; /* an fd open on nothing the shim tracks costs no fstat */
  if (!kp_writable_entry(fd, rel, cap, &was) || fstat(fd, &st) != 0) return 0;
  return kp_unseen_since(fd, &was, &st, grown);
}

int kp_fd_unseen_stat(int fd, const struct stat *st, char *rel, size_t cap,
                      unsigned long long *grown) {
  kp_fd_entry was;
  if (!kp_writable_entry(fd, rel, cap, &was)) return 0;
  return kp_unseen_since(fd, &was, st, grown);
}

int kp_fd_next_writable(int after, const char *rel) {
  if (__atomic_load_n(&g_count, __ATOMIC_RELAXED) == 0) return -1;
  int found = -1;
  pthread_mutex_lock(&g_mu);
  for (size_t fd = after < 0 ? 0 : (size_t)after + 1; fd < g_cap && found < 0; ++fd) {
    const kp_fd_entry *e = &g_entries[fd];
    if (e->rel != NULL && e->writable && (rel == NULL || strcmp(e->rel, rel) == 0)) found = (int)fd;
  }
  pthread_mutex_unlock(&g_mu);
  return found;
}

int kp_fd_lookup(int fd, char *rel, size_t cap) {
  struct stat st;
  int flags;
  return kp_fd_lookup_stat(fd, rel, cap, &st, &flags);
}

int kp_fd_lookup_stat(int fd, char *rel, size_t cap, struct stat *st, int *flags) {
  if (fd < 0 || __atomic_load_n(&g_count, __ATOMIC_RELAXED) == 0) return 0;
  int found = 0;
  dev_t dev = 0;
  ino_t ino = 0;
  pthread_mutex_lock(&g_mu);
  if ((size_t)fd < g_cap && g_entries[fd].rel != NULL && strlen(g_entries[fd].rel) < cap) {
    strcpy(rel, g_entries[fd].rel);
    dev = g_entries[fd].dev;
    ino = g_entries[fd].ino;
    *flags = g_entries[fd].flags;
    found = 1;
  }
  pthread_mutex_unlock(&g_mu);
  if (!found) return 0;
  if (fstat(fd, st) == 0 && st->st_dev == dev && st->st_ino == ino) return 1;
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
  kp_drop_readers((size_t)fd, (size_t)fd);
  pthread_mutex_unlock(&g_mu);
}

int kp_fd_reader(int fd) {
  int reader = -1;
  pthread_mutex_lock(&g_mu);
  if (fd >= 0 && (size_t)fd < g_cap && g_entries[fd].rel != NULL) {
    kp_fd_entry *e = &g_entries[fd];
    if (e->flags & KP_FD_READABLE) {
      reader = fd;
    } else if (e->reader != 0) {
      reader = e->reader - 1;
    } else {
      char self[64];
      snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
      int opened = open(self, O_RDONLY | O_CLOEXEC);
      /* Far from the low numbers shells and jobs name themselves ("exec 3>file"). */
      reader = opened < 0 ? -1 : fcntl(opened, F_DUPFD_CLOEXEC, 512);
      if (reader < 0)
        reader = opened;
      else if (opened >= 0)
        kp_real_close(opened);
      if (reader >= 0) e->reader = reader + 1;
    }
  }
  pthread_mutex_unlock(&g_mu);
  return reader;
}

void kp_fd_dup(int from, int to) {
  if (from < 0 || to < 0 || from == to) return;
  if (__atomic_load_n(&g_count, __ATOMIC_RELAXED) == 0) return;
  pthread_mutex_lock(&g_mu);
  kp_clear((size_t)to);
  kp_drop_readers((size_t)to, (size_t)to);
  if ((size_t)from < g_cap && g_entries[from].rel != NULL && kp_grow((size_t)to) == 0) {
    char *copy = strdup(g_entries[from].rel);
    if (copy != NULL) {
      g_entries[to] = g_entries[from];
      g_entries[to].rel = copy;
      g_entries[to].reader = 0; /* the reader stays `from`'s */
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
  kp_drop_readers(lo, hi);
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
    if (n <= 0 || target[0] != '/') continue; /* socket:[..], pipe:[..], anon_inode:.. */
    target[n] = '\0';
    struct stat st;
    if (fstat((int)fd, &st) != 0 || (S_ISREG(st.st_mode) && st.st_nlink == 0)) continue;
    if (kp_relpath(target, rel, sizeof rel)) kp_fd_record((int)fd, rel, 0);
  }
  closedir(dir);
}

void kp_fd_atfork_prepare(void) { pthread_mutex_lock(&g_mu); }
void kp_fd_atfork_parent(void) { pthread_mutex_unlock(&g_mu); }
void kp_fd_atfork_child(void) { pthread_mutex_init(&g_mu, NULL); }
