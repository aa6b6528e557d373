/* Wrappers of the ways a process leaves without running its destructors: _exit and _Exit
 * (a forked child's usual end), and the exec family (the image is replaced). Neither is a crash
 * point; each first reports the writes it did not see (kp_unseen_writes), then sends the one-way
 * reports (protocol v1.2) still queued, which would otherwise be lost with the process's memory.
 * The variadic execl, execlp and execle are not wrapped: glibc builds their argv and calls its
 * internal execve, out of the shim's reach (docs/syscall-shim.md). */
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "channel.h"
#include "interpose.h"
#include "shim.h"

KP_REAL(execve, int, (const char *, char *const[], char *const[]))
KP_REAL(execv, int, (const char *, char *const[]))
KP_REAL(execvp, int, (const char *, char *const[]))
KP_REAL(execvpe, int, (const char *, char *const[], char *const[]))
KP_REAL(fexecve, int, (int, char *const[], char *const[]))

typedef void (*kp_exit_fn)(int);

static void kp_flush_before_leaving(const char *at) {
  if (!kp_enabled() || !kp_own_process()) return;
  int err = errno;
  kp_guard_enter();
  kp_unseen_writes(NULL, at); /* the fds are closed by the kernel, or adopted afresh after exec */
  kp_channel_flush_at_exit();
  kp_guard_leave();
  errno = err;
}

/* The next _exit or _Exit; if none, the exit_group system call itself. */
static __attribute__((noreturn)) void kp_leave(const char *name, int status) {
  kp_exit_fn fn = (kp_exit_fn)dlsym(RTLD_NEXT, name);
  if (fn != NULL) fn(status);
  for (;;) syscall(SYS_exit_group, status);
}

KP_EXPORT void _exit(int status) {
  kp_flush_before_leaving("exit");
  kp_leave("_exit", status);
}

KP_EXPORT void _Exit(int status) {
  kp_flush_before_leaving("exit");
  kp_leave("_Exit", status);
}

KP_EXPORT int execve(const char *path, char *const argv[], char *const envp[]) {
  kp_flush_before_leaving("exec");
  return kp_next_execve()(path, argv, envp);
}

KP_EXPORT int execv(const char *path, char *const argv[]) {
  kp_flush_before_leaving("exec");
  return kp_next_execv()(path, argv);
}

KP_EXPORT int execvp(const char *file, char *const argv[]) {
  kp_flush_before_leaving("exec");
  return kp_next_execvp()(file, argv);
}

KP_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[]) {
  kp_flush_before_leaving("exec");
  return kp_next_execvpe()(file, argv, envp);
}

KP_EXPORT int fexecve(int fd, char *const argv[], char *const envp[]) {
  kp_flush_before_leaving("exec");
  return kp_next_fexecve()(fd, argv, envp);
}
