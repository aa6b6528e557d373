/* fd -> sandbox-relative path, for the fds open on sandbox paths (files and directories).
 * Each entry also keeps the file's device and inode: an fd closed behind the shim's back
 * (fclose, a raw syscall) and reused for something else is detected and forgotten. All
 * functions are thread-safe. */
#ifndef KILLPOINT_SHIM_FD_TABLE_H_
#define KILLPOINT_SHIM_FD_TABLE_H_

#include <stddef.h>

/* Records fd as open on `rel` (replacing any earlier entry). */
void kp_fd_set(int fd, const char *rel);
/* 1 and the relpath when fd is tracked and still the file it was opened on. */
int kp_fd_lookup(int fd, char *rel, size_t cap);
void kp_fd_forget(int fd);
/* After a successful dup of `from` onto `to`: `to` inherits `from`'s entry, or none. */
void kp_fd_dup(int from, int to);
/* After a rename in the sandbox: the entries at `from` or below it move to `to` (forgotten
 * when `to` is NULL: outside the sandbox); with `exchange`, those at `to` move to `from` too.
 * `from` NULL (the source was outside): the entries at `to` are left alone. */
void kp_fd_rename(const char *from, const char *to, int exchange);
/* close_range / closefrom: forgets every fd in [lo, hi]. */
void kp_fd_forget_range(unsigned lo, unsigned hi);
/* Adopts the fds the process inherited open on sandbox paths (read from /proc/self/fd). */
void kp_fd_adopt_inherited(void);

void kp_fd_atfork_prepare(void);
void kp_fd_atfork_parent(void);
void kp_fd_atfork_child(void);

#endif /* KILLPOINT_SHIM_FD_TABLE_H_ */
