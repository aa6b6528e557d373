/* The shim's end of the failpoint protocol, v1.1 to v1.7 (docs/failpoint-protocol.md): one TCP
 * connection per process to KILLPOINT_CTL, opened at the first crash point and again after a
 * fork. A wrapper fills a kp_point, calls kp_point_hit before the operation and
 * kp_point_done after it. Threads take turns: the channel is held from HIT to the answer,
 * and, when the answer is AFTER or PARTIAL, across the operation until DONE is answered. */
#ifndef KILLPOINT_SHIM_CHANNEL_H_
#define KILLPOINT_SHIM_CHANNEL_H_

#include "shim.h"

enum { KP_CONTINUE = 0, KP_AFTER = 1, KP_PARTIAL = 2 };

/* The largest size a HIT reports (18 digits): larger requests (copy_file_range from a pipe asks
 * for ~2^63 bytes) are reported as this. */
#define KP_BYTES_MAX 999999999999999999ULL

typedef struct {
  int armed;                  /* a crash point: HIT is sent. 0: everything is a no-op */
  int is_write;               /* a write: its size goes with HIT, PARTIAL is allowed */
  int excl;                   /* an open that creates the file exclusively (O_CREAT|O_EXCL):
                                 HIT and SEEN carry the flag "excl" (protocol v1.3) */
  int wait;                   /* waits for an answer even when one-way reports are on: a
                                 directory's sync under the durability journal (shadow.h) */
  const char *unseen;         /* a write the shim did not see (v1.4), noticed at this op ("close",
                                 "fsync", "dup2", "rename", "exit"...): HIT and SEEN carry
                                 "unseen:<op>" after the bytes. NULL for a real call */
  unsigned long long bytes;   /* the write's size */
  long long offset;           /* a write's file offset when the call names one (pwrite), else -1 */
  int offset_fd;              /* a write's fd, to learn where it lands when HIT is sent (v1.7:
                                 "at:<offset>"): the file's size under O_APPEND or `append`, else
                                 `offset`, else the fd's position. -1: unknown, no "at:" */
  int append;                 /* RWF_APPEND: the write lands at the end whatever the fd */
  int answer;                 /* KP_CONTINUE, KP_AFTER or KP_PARTIAL */
  unsigned long long partial; /* PARTIAL's n */
  int locked;                 /* holding the channel until DONE is answered */
  char name[KP_NAME_MAX];
} kp_point;

static inline void kp_point_init(kp_point *p) {
  p->armed = 0;
  p->is_write = 0;
  p->excl = 0;
  p->wait = 0;
  p->unseen = NULL;
  p->bytes = 0;
  p->offset = -1;
  p->offset_fd = -1;
  p->append = 0;
  p->answer = KP_CONTINUE;
  p->partial = 0;
  p->locked = 0;
  p->name[0] = '\0';
}

/* Arms the point as "<op>:<a>" or "<op>:<a>:<b>" (b may be NULL), with every character outside
 * [A-Za-z0-9_.:/-] replaced by '_'. */
void kp_point_name(kp_point *p, const char *op, const char *a, const char *b);
/* Sends HIT and reads the answer, or queues a one-way SEEN (v1.2). Exits 70 on ERROR, EOF, any I/O
 * error or a bad answer. */
void kp_point_hit(kp_point *p);
/* After AFTER or PARTIAL: sends DONE (with `done_bytes` for a write) and waits for CONTINUE. */
void kp_point_done(kp_point *p, unsigned long long done_bytes);

/* v1.5: reports that `op` changed `path`, an absolute path outside the sandbox, one way
 * ("OUTSIDE <op> <pid> <path>", the path's bytes outside '!'..'~' and '%' as %XX), once per op
 * and path in this process. Sent at once with the lines queued before it, so that a kill that
 * follows finds it at the harness. A path too long for a protocol line is not reported. */
void kp_channel_outside(const char *op, const char *path);

/* v1.2: `armed` (KILLPOINT_ARMED, NULL when unset) is the one point that waits for an answer;
 * every other point is reported one way unless its op is in the comma-separated `wait_ops`
 * (KILLPOINT_WAIT_OPS). Unset: every point waits, as in v1.1. Called once, at load. */
void kp_channel_configure(const char *armed, const char *wait_ops);
/* Sends the one-way reports not sent yet; called at exit. */
void kp_channel_flush_at_exit(void);

/* The job closed fd (or dup'ed over it): if it was the channel's socket, forget the socket. */
void kp_channel_forget_fds(unsigned lo, unsigned hi);
void kp_channel_atfork_child(void);

#endif /* KILLPOINT_SHIM_CHANNEL_H_ */
