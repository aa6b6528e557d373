/* The syscall shim's internal interface (docs/syscall-shim.md). Everything here is hidden:
 * the library exports only the interposed libc functions (interpose_fd.c, interpose_path.c). */
#ifndef KILLPOINT_SHIM_SHIM_H_
#define KILLPOINT_SHIM_SHIM_H_

#include <stddef.h>
#include <sys/types.h>

#define KP_EXPORT __attribute__((visibility("default")))

/* Longest path the shim resolves; longer ones are passed through untouched. */
#define KP_PATH_MAX 4096
/* Longest crash point name, with its NUL, so that "HIT <name> <pid> <bytes>\n" fits the
 * protocol's 4096-byte line. Longer names are cut. */
#define KP_NAME_MAX 4040

/* ---- killpoint_shim.c: configuration, reentrancy guard, process ownership ---- */

/* Set once by the constructor when KILLPOINT_CTL and KILLPOINT_WORKDIR are both set. */
extern int kp_active_flag;
/* Per-thread depth of shim code on the stack: while non-zero, every wrapper passes through. */
extern _Thread_local int kp_guard_depth __attribute__((tls_model("initial-exec")));

/* True when the wrappers must act: the shim is active and this thread is not already inside
 * one of them (the shim's own I/O, libc's work inside a wrapper, a signal handler). */
static inline int kp_enabled(void) {
  return __atomic_load_n(&kp_active_flag, __ATOMIC_ACQUIRE) && kp_guard_depth == 0;
}
static inline void kp_guard_enter(void) { ++kp_guard_depth; }
static inline void kp_guard_leave(void) { --kp_guard_depth; }

/* False in a child that shares the parent's memory without having gone through fork()'s
 * handlers (vfork, clone, _Fork: interpose_fork.c): there the shim touches nothing. A
 * posix_spawn child calls only glibc's internal functions, which no wrapper sees. */
int kp_own_process(void);
/* Raised once the process made a child that skips fork()'s handlers (interpose_fork.c). */
extern int kp_foreign_children;
void kp_fork_init(void);
/* getpid() without a system call: the owner's pid, kept by fork()'s handlers. */
pid_t kp_pid(void);
const char *kp_ctl(void);
/* KILLPOINT_SKIP_FSYNC=1: fsync and fdatasync of sandbox files return 0 without the kernel. */
int kp_skip_sync(void);
/* The sandbox root, lexically normalized, and its realpath (the same when no symlink). */
const char *kp_workdir(void);
const char *kp_workdir_real(void);

/* Writes "killpoint shim: <formatted>\n" to stderr (with the real write) and _exit(70). */
void kp_fatal(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* ---- paths.c ---- */

/* Absolute, lexically normalized form of `path` taken relative to `dirfd` (AT_FDCWD: the
 * cwd). 0 on success, -1 when it cannot be resolved (too long, unknown dirfd, empty). */
int kp_resolve(int dirfd, const char *path, char *out, size_t cap);
/* 1 and the sandbox-relative path ("." for the root) when `abs` is inside the sandbox. */
int kp_relpath(const char *abs, char *rel, size_t cap);
/* kp_resolve then kp_relpath. With `abs` non-NULL, the absolute path is left there too. */
int kp_sandbox_path(int dirfd, const char *path, char *rel, size_t cap, char *abs);
/* Lexical normalization of an absolute path: ".", ".." and repeated '/' removed. */
int kp_normalize(const char *in, char *out, size_t cap);

/* ---- interpose_fd.c: the real (next) definitions, for the shim's own I/O ---- */

ssize_t kp_real_write(int fd, const void *buf, size_t n);
int kp_real_close(int fd);

/* Unseen writes (docs/syscall-shim.md): when fd, open for writing on a sandbox file, changed
 * since the last operation the shim saw on it in this process, reports the crash point
 * "write:<rel>" flagged "unseen:<at>" (protocol v1.4), before the operation `at` that noticed
 * it. The data is in the file already: a kill there is a kill after that write. Call with the
 * guard held. */
void kp_unseen_write(int fd, const char *at);
/* The same for every tracked fd open for writing (on `rel` only, when not NULL). */
void kp_unseen_writes(const char *rel, const char *at);

/* ---- outside.c: writes outside the sandbox (docs/syscall-shim.md; protocol v1.5) ---- */

/* 1 for what is never reported: a path that is not absolute ("pipe:[12]"), and the pseudo file
 * systems /dev (but /dev/shm), /proc and /sys. */
int kp_outside_ignored(const char *abs);
/* After a successful `op` ("rename", "unlink", "rmdir", "mkdir", "truncate", "link",
 * "symlink") on `path` relative to `dirfd`: reports it when its real path (the parent's
 * realpath and the last component) is outside the sandbox. */
void kp_outside_path(const char *op, int dirfd, const char *path);
/* After a successful open for writing of fd (`abs`: the path as opened, made absolute, or
 * NULL): reports it when the fd's real path (/proc/self/fd) is outside the sandbox and it is a
 * regular file or a directory. */
void kp_outside_fd(const char *op, int fd, const char *abs);

#endif /* KILLPOINT_SHIM_SHIM_H_ */
