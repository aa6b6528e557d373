/* The durability journal: what an fsync makes durable, kept by the shim (shadow.h). */
#include "shadow.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "shim.h"

/* What this process last recorded of a file, to record only what it appended since. */
typedef struct {
  dev_t dev;
  ino_t ino;
  off_t recorded; /* the size the last record gave it */
  off_t size;     /* its size and mtime after the last change this process knows of */
  struct timespec mtime;
  int clean; /* since that record, only seen writes at or after `recorded` */
  int used;
} kp_shadow_file;

#define KP_SHADOW_FILES 32

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static char g_dir[KP_PATH_MAX]; /* "" when off */
static int g_journal = -1;      /* DIR/journal, O_APPEND; guarded by g_mu */
static int g_data = -1;         /* DIR/data-<pid> */
static off_t g_data_end;        /* where the next copy goes in it */
static kp_shadow_file g_files[KP_SHADOW_FILES];
static unsigned g_next_slot;

void kp_shadow_configure(const char *dir) {
  if (dir == NULL || dir[0] == '\0' || strlen(dir) + 32 >= sizeof g_dir) return;
  strcpy(g_dir, dir);
}

int kp_shadow_on(void) { return g_dir[0] != '\0'; }

static int kp_open_in_dir(const char *name, int flags) {
  char path[KP_PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/%s", g_dir, name);
  return open(path, flags | O_CLOEXEC, 0600);
}

/* Requires g_mu. The journal and this process's data file, opened at the first record (the
 * data file of an earlier image of this pid, before an exec, is kept: records point into it). */
static void kp_shadow_open(void) {
  if (g_journal < 0) g_journal = kp_open_in_dir("journal", O_WRONLY | O_APPEND | O_CREAT);
  if (g_journal < 0)
    kp_fatal("cannot open the durability journal in %s: %s", g_dir, strerror(errno));
  if (g_data >= 0) return;
  char name[64];
  snprintf(name, sizeof name, "data-%d", (int)kp_pid());
  g_data = kp_open_in_dir(name, O_WRONLY | O_CREAT);
  struct stat st;
  if (g_data < 0 || fstat(g_data, &st) != 0)
    kp_fatal("cannot open %s/%s: %s", g_dir, name, strerror(errno));
  g_data_end = st.st_size;
}

static int kp_same_stamp(const kp_shadow_file *f, const struct stat *st) {
  return f->size == st->st_size && f->mtime.tv_sec == st->st_mtim.tv_sec &&
         f->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

static kp_shadow_file *kp_find(const struct stat *st) {
  for (int i = 0; i < KP_SHADOW_FILES; ++i) {
    if (g_files[i].used && g_files[i].dev == st->st_dev && g_files[i].ino == st->st_ino)
      return &g_files[i];
  }
  return NULL;
}

/* Copies `len` bytes of src from `from` to the end of the data file; returns the bytes copied
 * (fewer when the file shrank meanwhile). */
static off_t kp_copy(int src, off_t from, off_t len) {
  off_t done = 0;
  while (done < len) {
    off64_t in = from + done, out = g_data_end + done;
    ssize_t n = copy_file_range(src, &in, g_data, &out, (size_t)(len - done), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EXDEV || errno == EINVAL || errno == EOPNOTSUPP || errno == ENOSYS)) {
      char buf[16384]; /* a file system without copy_file_range between these files */
      n = pread(src, buf, len - done < (off_t)sizeof buf ? (size_t)(len - done) : sizeof buf,
                from + done);
      if (n > 0 && pwrite(g_data, buf, (size_t)n, g_data_end + done) != n) n = -1;
    }
    if (n < 0)
      kp_fatal("cannot copy a synced file to the durability journal in %s: %s", g_dir,
               strerror(errno));
    if (n == 0) break;
    done += n;
  }
  return done;
}

void kp_shadow_sync(int src, const struct stat *st) {
  /* A file no name leads to any more is none of the sandbox's: its sync keeps nothing. */
  if (!kp_shadow_on() || !S_ISREG(st->st_mode) || st->st_nlink == 0) return;
  pthread_mutex_lock(&g_mu);
  kp_shadow_open();
  kp_shadow_file *f = kp_find(st);
  int delta = f != NULL && f->clean && kp_same_stamp(f, st) && st->st_size >= f->recorded;
  off_t from = delta ? f->recorded : 0;
  if (src < 0)
    kp_fatal("cannot read a synced file for the durability journal: %s", strerror(errno));
  off_t copied = kp_copy(src, from, st->st_size - from);
  char line[160];
  int n = delta
              ? snprintf(line, sizeof line, "A %llu %d %lld %lld %lld\n",
                         (unsigned long long)st->st_ino, (int)kp_pid(), (long long)g_data_end,
                         (long long)copied, (long long)from)
              : snprintf(line, sizeof line, "F %llu %d %lld %lld\n", (unsigned long long)st->st_ino,
                         (int)kp_pid(), (long long)g_data_end, (long long)copied);
  if (write(g_journal, line, (size_t)n) != n)
    kp_fatal("cannot write the durability journal in %s", g_dir);
  g_data_end += copied;
  if (f == NULL) {
    f = &g_files[g_next_slot++ % KP_SHADOW_FILES];
    f->used = 1;
    f->dev = st->st_dev;
    f->ino = st->st_ino;
  }
  f->recorded = from + copied;
  f->size = st->st_size;
  f->mtime = st->st_mtim;
  f->clean = 1;
  pthread_mutex_unlock(&g_mu);
}

void kp_shadow_wrote(const struct stat *before, const struct stat *after, long long at) {
  if (!kp_shadow_on()) return;
  pthread_mutex_lock(&g_mu);
  kp_shadow_file *f = kp_find(before);
  if (f != NULL) {
    if (!kp_same_stamp(f, before) || at < 0 || at < (long long)f->recorded ||
        after->st_size < f->recorded || after->st_ino != f->ino) {
      f->clean = 0;
    }
    f->size = after->st_size;
    f->mtime = after->st_mtim;
  }
  pthread_mutex_unlock(&g_mu);
}

void kp_shadow_truncated(const struct stat *st) {
  if (!kp_shadow_on()) return;
  pthread_mutex_lock(&g_mu);
  kp_shadow_file *f = kp_find(st);
  if (f != NULL) f->clean = 0;
  pthread_mutex_unlock(&g_mu);
}

void kp_shadow_atfork_prepare(void) { pthread_mutex_lock(&g_mu); }
void kp_shadow_atfork_parent(void) { pthread_mutex_unlock(&g_mu); }

/* The parent's records are the parent's: the child starts its own data file. */
void kp_shadow_atfork_child(void) {
  pthread_mutex_init(&g_mu, NULL);
  if (g_data >= 0) close(g_data);
  g_data = -1;
  g_data_end = 0;
  memset(g_files, 0, sizeof g_files);
}
