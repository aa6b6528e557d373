/* The durability journal (KILLPOINT_SHADOW, docs/syscall-shim.md "The durability journal"):
 * under the power model the harness does not hold the job at each fsync to read the file;
 * the shim keeps what the fsync makes durable itself, and goes on without waiting.
 *
 * Before the fsync or fdatasync of a regular sandbox file that the job is let through to, the
 * shim copies the file's content (copy_file_range) to the end of its process's data file,
 * DIR/data-<pid>, then appends one line to DIR/journal, shared by every process of the
 * attempt (O_APPEND, one write a line, so that the journal's order is the order the records
 * were made in):
 *
 *   F <ino> <pid> <off> <len>          the file's whole content: data-<pid>[off, off+len)
 *   A <ino> <pid> <off> <len> <keep>   the first <keep> bytes of the content this process
 *                                      recorded last for <ino>, then data-<pid>[off, off+len)
 *
 * An A line is written only when, since this process's last record of the file, the file
 * changed only through this process's seen writes at or after <keep> (an O_APPEND write, a
 * positional one), and its size and mtime are what the last of them left: anything else (a
 * truncate, an unseen change, another process's write) gets an F line.
 * A process killed between the copy and its line leaves no line: that fsync never happened.
 * Thread-safe (one mutex); nothing here runs in a signal handler. Call with the guard held. */
#ifndef KILLPOINT_SHIM_SHADOW_H_
#define KILLPOINT_SHIM_SHADOW_H_

#include <sys/stat.h>

/* KILLPOINT_SHADOW's value (NULL or empty: no journal). Called once, at load. */
void kp_shadow_configure(const char *dir);
int kp_shadow_on(void);
/* Before the sync of a regular file whose fstat is `st`: records its content, read through
 * `src`, an fd open for reading on it (kp_fd_reader; -1: exits 70, the sync cannot be kept). */
void kp_shadow_sync(int src, const struct stat *st);
/* After a seen write of this process: `before` and `after` are the file's fstat around it;
 * `at` the offset it wrote at, -1 when unknown (a write at the file position without O_APPEND).
 * Keeps an A line possible at the next sync when the write left the recorded bytes alone. */
void kp_shadow_wrote(const struct stat *before, const struct stat *after, long long at);
/* A seen truncate: the next sync of the file records it whole. */
void kp_shadow_truncated(const struct stat *st);
void kp_shadow_atfork_prepare(void);
void kp_shadow_atfork_parent(void);
void kp_shadow_atfork_child(void);

#endif /* KILLPOINT_SHIM_SHADOW_H_ */
