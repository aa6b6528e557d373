/* killpoint's syscall shim: an LD_PRELOAD library that turns the file operations of an
 * unmodified, dynamically linked job into crash points (docs/syscall-shim.md).
 *
 * This file holds the configuration read once at load, the reentrancy guard, and fork
 * handling. The wrappers are in interpose_fd.c and interpose_path.c, the fd table in
 * fd_table.c, the wire protocol in channel.c, path arithmetic in paths.c. */
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "channel.h"
#include "fd_table.h"
#include "shadow.h"
#include "shim.h"

int kp_active_flag;
_Thread_local int kp_guard_depth __attribute__((tls_model("initial-exec")));

static char *g_ctl;                      /* KILLPOINT_CTL */
static char g_workdir[KP_PATH_MAX];      /* KILLPOINT_WORKDIR, normalized */
static char g_workdir_real[KP_PATH_MAX]; /* its realpath, or the same */
static pid_t g_owner_pid;                /* the process the shim's state belongs to */
static int g_skip_sync; /* KILLPOINT_SKIP_FSYNC=1: sandbox files are never really synced */

const char *kp_ctl(void) { return g_ctl; }
const char *kp_workdir(void) { return g_workdir; }
const char *kp_workdir_real(void) { return g_workdir_real; }

int kp_skip_sync(void) { return g_skip_sync; }

pid_t kp_pid(void) { return __atomic_load_n(&g_owner_pid, __ATOMIC_RELAXED); }

/* Until the process makes a child that skips fork()'s handlers (interpose_fork.c), it is the
 * owner: a forked child's handlers make the child the owner of its own copy. */
int kp_own_process(void) {
  if (!__atomic_load_n(&kp_foreign_children, __ATOMIC_RELAXED)) return 1;
  return getpid() == __atomic_load_n(&g_owner_pid, __ATOMIC_RELAXED);
}

void kp_fatal(const char *fmt, ...) {
  char line[KP_NAME_MAX + 512] = "killpoint shim: ";
  size_t len = strlen(line);
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line + len, sizeof line - len - 1, fmt, ap);
  va_end(ap);
  if (n > 0) len += (size_t)n < sizeof line - len - 1 ? (size_t)n : sizeof line - len - 2;
  line[len++] = '\n';
  for (size_t off = 0; off < len;) {
    ssize_t w = kp_real_write(2, line + off, len - off);
    if (w <= 0) break;
    off += (size_t)w;
  }
  _exit(70);
}

static void kp_atfork_prepare(void) {
  kp_fd_atfork_prepare();
  kp_shadow_atfork_prepare();
}
static void kp_atfork_parent(void) {
  kp_shadow_atfork_parent();
  kp_fd_atfork_parent();
}
static void kp_atfork_child(void) {
  __atomic_store_n(&g_owner_pid, getpid(), __ATOMIC_RELAXED);
  kp_fd_atfork_child();
  kp_shadow_atfork_child();
  kp_channel_atfork_child();
}

/* Runs once when the library is loaded (in every exec'd program that keeps LD_PRELOAD). */
__attribute__((constructor)) static void kp_init(void) {
  kp_guard_enter();
  kp_fork_init();
  const char *ctl = getenv("KILLPOINT_CTL");
  const char *workdir = getenv("KILLPOINT_WORKDIR");
  if (ctl == NULL || *ctl == '\0' || workdir == NULL || *workdir == '\0') goto out;

  char joined[KP_PATH_MAX];
  if (workdir[0] == '/') {
    if (strlen(workdir) >= sizeof joined) goto out;
    strcpy(joined, workdir);
  } else {
    char cwd[KP_PATH_MAX];
    if (getcwd(cwd, sizeof cwd) == NULL) goto out;
    size_t a = strlen(cwd), b = strlen(workdir);
    if (a + 1 + b >= sizeof joined) goto out;
    memcpy(joined, cwd, a);
    joined[a] = '/';
    memcpy(joined + a + 1, workdir, b + 1);
  }
  if (kp_normalize(joined, g_workdir, sizeof g_workdir) != 0) goto out;
  char real[PATH_MAX];
  if (realpath(g_workdir, real) != NULL && strlen(real) < sizeof g_workdir_real) {
    strcpy(g_workdir_real, real);
  } else {
    strcpy(g_workdir_real, g_workdir);
  }
  g_ctl = strdup(ctl);
  if (g_ctl == NULL) goto out;
  g_owner_pid = getpid();
  if (pthread_atfork(kp_atfork_prepare, kp_atfork_parent, kp_atfork_child) != 0) goto out;
  kp_channel_configure(getenv("KILLPOINT_ARMED"), getenv("KILLPOINT_WAIT_OPS"));
  kp_shadow_configure(getenv("KILLPOINT_SHADOW"));
  const char *skip = getenv("KILLPOINT_SKIP_FSYNC");
  g_skip_sync = skip != NULL && strcmp(skip, "1") == 0;
  /* Files the job inherited already open on the sandbox ("cmd > file" in a shell). */
  kp_fd_adopt_inherited();
  __atomic_store_n(&kp_active_flag, 1, __ATOMIC_RELEASE);
out:
  kp_guard_leave();
}

/* Writes not seen and one-way reports still queued go out before the process ends (exit(), a
 * return from main). stdio buffers that exit() flushes later are not seen. */
__attribute__((destructor)) static void kp_fini(void) {
  if (!__atomic_load_n(&kp_active_flag, __ATOMIC_ACQUIRE) || !kp_own_process()) return;
  kp_guard_enter();
  kp_unseen_writes(NULL, "exit");
  kp_channel_flush_at_exit();
  kp_guard_leave();
}
