/* fd -> sandbox-relative path, for the fds open on sandbox paths (files and directories).
 * Each entry also keeps the file's device and inode: an fd closed behind the shim's back
 * (fclose, a raw syscall) and reused for something else is detected and forgotten. All
 * functions are thread-safe. */
#ifndef KILLPOINT_SHIM_FD_TABLE_H_
#define KILLPOINT_SHIM_FD_TABLE_H_

#include <stddef.h>
#include <sys/stat.h>

/* Records fd as open on `rel` (replacing any earlier entry). */
void kp_fd_set(int fd, const char *rel);
/* Unseen writes (docs/syscall-shim.md): each entry keeps its file's size and mtime after the
 * last operation the shim saw on it in this process (its stamp). After a seen operation that
 * changes the file (a write, a truncate), every entry on that file takes `st` as its stamp. */
void kp_fd_stamp(const struct stat *st);
/* fstat(fd), then kp_fd_stamp; the stamp is also left on the file (an extended attribute) for
 * the other processes that have it open (fd_table.c). */
void kp_fd_stamp_fd(int fd);
/* 1, the relpath and the bytes the file grew by (0 if it did not), when fd is a tracked fd open
 * for writing on a regular file whose size or mtime changed since its stamp: a write the shim
 * did not see. The entries then take the new stamp, so that a change is reported once. */
int kp_fd_unseen(int fd, char *rel, size_t cap, unsigned long long *grown);
/* fd's file is mapped shared and writable by this process: from now on a change of its mtime
 * alone is the mapping's, not an unseen write (docs/syscall-shim.md, "Unseen writes"). */
void kp_fd_mapped(int fd);
/* The first tracked fd open for writing above `after` (-1: from 0), on `rel` when not NULL;
 * -1 when none. */
int kp_fd_next_writable(int after, const char *rel);
/* 1 and the relpath when fd is tracked and still the file it was opened on. */
int kp_fd_lookup(int fd, char *rel, size_t cap);
/* What an entry knows of how its fd was opened. */
enum { KP_FD_READABLE = 1, KP_FD_APPEND = 2 };
/* kp_fd_lookup that also leaves the file's fstat in *st and the KP_FD_* flags in *flags: one
 * fstat for a wrapper's lookup and its check for unseen writes (kp_fd_unseen_stat). */
int kp_fd_lookup_stat(int fd, char *rel, size_t cap, struct stat *st, int *flags);
/* kp_fd_unseen with the file's fstat `st` taken already (by kp_fd_lookup_stat). */
int kp_fd_unseen_stat(int fd, const struct stat *st, char *rel, size_t cap,
                      unsigned long long *grown);
/* kp_fd_stamp_fd that leaves the fstat in *st; 0 when fstat failed. */
int kp_fd_stamp_fd_stat(int fd, struct stat *st);
void kp_fd_forget(int fd);
/* An fd open for reading on tracked fd's file: fd itself when it was opened for reading, else
 * a hidden one (O_CLOEXEC, numbered 512 or more) the shim opens once and closes with fd's
 * entry; never one the job closed or dup'ed over since. -1 when fd is not tracked or the file
 * cannot be opened. */
int kp_fd_reader(int fd);
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
