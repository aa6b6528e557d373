#include "channel.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define KP_LINE_MAX 4096

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static int g_fd = -1; /* the connection; guarded by g_mu (kp_channel_forget_fds: CAS) */
static pid_t g_pid;   /* the process that opened it */
static char g_buf[KP_LINE_MAX];
static size_t g_len;

/* v1.2: when the harness names the one point this process may be stopped at (KILLPOINT_ARMED),
 * every other point is reported one way ("SEEN ...") through g_out, sent when it fills up,
 * before the next HIT, and at exit. Ops listed in KILLPOINT_WAIT_OPS always wait for an
 * answer: the harness reads the sandbox while the job is held there. */
#define KP_OUT_MAX 65536
#define KP_WAIT_OPS_MAX 16
static int g_one_way;             /* KILLPOINT_ARMED was set */
static char g_armed[KP_NAME_MAX]; /* its value: "" arms nothing */
static char g_wait_ops[KP_WAIT_OPS_MAX][16];
static int g_wait_op_count;
static char g_out[KP_OUT_MAX]; /* SEEN lines not sent yet; guarded by g_mu */
static size_t g_out_len;

/* v1.5: hashes of the (op, path) pairs reported OUTSIDE by this process (a forked child keeps
 * its parent's), so that each is sent once; guarded by g_mu. Once it is 3/4 full, everything
 * is sent: the harness keeps one record per path and attempt anyway. */
#define KP_OUTSIDE_SLOTS 512
static unsigned long long g_outside_seen[KP_OUTSIDE_SLOTS];
static int g_outside_count;

static int kp_name_char_ok(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == ':' || c == '/' || c == '-';
}

static size_t kp_append(char *out, size_t len, const char *s, int sanitize) {
  for (; *s != '\0' && len < KP_NAME_MAX - 1; ++s, ++len) {
    out[len] = sanitize && !kp_name_char_ok((unsigned char)*s) ? '_' : *s;
  }
  out[len] = '\0';
  return len;
}

void kp_point_name(kp_point *p, const char *op, const char *a, const char *b) {
  size_t len = kp_append(p->name, 0, op, 0);
  len = kp_append(p->name, len, ":", 0);
  len = kp_append(p->name, len, a, 1);
  if (b != NULL) {
    len = kp_append(p->name, len, ":", 0);
    kp_append(p->name, len, b, 1);
  }
  p->armed = 1;
}

/* Connects to KILLPOINT_CTL; -1 with errno (or *why) on failure. */
static int kp_connect(const char **why) {
  const char *ctl = kp_ctl();
  const char *colon = strrchr(ctl, ':');
  char host[256];
  *why = NULL;
  if (colon == NULL || colon == ctl || (size_t)(colon - ctl) >= sizeof host) {
    *why = "not HOST:PORT";
    return -1;
  }
  char *end;
  long port = strtol(colon + 1, &end, 10);
  if (*end != '\0' || end == colon + 1 || port <= 0 || port > 65535) {
    *why = "bad port";
    return -1;
  }
  size_t n = (size_t)(colon - ctl);
  memcpy(host, ctl, n);
  host[n] = '\0';
  if (n >= 2 && host[0] == '[' && host[n - 1] == ']') { /* [::1] */
    memmove(host, host + 1, n - 2);
    host[n - 2] = '\0';
  }

  struct sockaddr_storage addr;
  socklen_t addr_len;
  memset(&addr, 0, sizeof addr);
  struct sockaddr_in *v4 = (struct sockaddr_in *)&addr;
  struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&addr;
  if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons((unsigned short)port);
    addr_len = sizeof *v4;
  } else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons((unsigned short)port);
    addr_len = sizeof *v6;
  } else {
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, colon + 1, &hints, &res) != 0 || res == NULL) {
      *why = "cannot resolve the host";
      return -1;
    }
    memcpy(&addr, res->ai_addr, res->ai_addrlen);
    addr_len = res->ai_addrlen;
    freeaddrinfo(res);
  }

  int fd = socket(addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  /* Without it, a HIT sent right behind queued SEEN lines waits for their ACK, which the
   * harness delays by up to 40 ms (Nagle's algorithm meeting delayed ACKs). */
  int one = 1;
  (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (connect(fd, (struct sockaddr *)&addr, addr_len) != 0) {
    int err = errno;
    if (err == EINTR) { /* the connection goes on asynchronously: wait for its outcome */
      struct pollfd pfd = {fd, POLLOUT, 0};
      socklen_t len = sizeof err;
      while (poll(&pfd, 1, -1) < 0 && errno == EINTR) {
      }
      if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
    }
    if (err != 0) {
      kp_real_close(fd);
      errno = err;
      return -1;
    }
  }
  return fd;
}

void kp_channel_configure(const char *armed, const char *wait_ops) {
  if (armed == NULL) return;
  size_t n = strlen(armed);
  if (n >= sizeof g_armed) return; /* no point has such a name: keep every round trip */
  memcpy(g_armed, armed, n + 1);
  g_wait_op_count = 0;
  for (const char *op = wait_ops; op != NULL && *op != '\0' && g_wait_op_count < KP_WAIT_OPS_MAX;) {
    const char *comma = strchr(op, ',');
    size_t len = comma != NULL ? (size_t)(comma - op) : strlen(op);
    if (len > 0 && len < sizeof g_wait_ops[0]) {
      memcpy(g_wait_ops[g_wait_op_count], op, len);
      g_wait_ops[g_wait_op_count++][len] = '\0';
    }
    op = comma != NULL ? comma + 1 : NULL;
  }
  g_one_way = 1;
}

/* True when the point needs no answer: not the armed one, and not an op that must wait. */
static int kp_is_one_way(const kp_point *p) {
  /* An exclusive create always waits (v1.3): the harness must have named the new file before
   * any process of the job, this one or another, can report a point on it. */
  if (!g_one_way || p->excl || p->wait || strcmp(p->name, g_armed) == 0) return 0;
  const char *colon = strchr(p->name, ':');
  size_t op_len = colon != NULL ? (size_t)(colon - p->name) : strlen(p->name);
  for (int i = 0; i < g_wait_op_count; ++i) {
    if (strlen(g_wait_ops[i]) == op_len && memcmp(g_wait_ops[i], p->name, op_len) == 0) return 0;
  }
  return 1;
}

static void kp_send_line(const char *name, const char *line, size_t len) {
  for (size_t off = 0; off < len;) {
    ssize_t n = send(g_fd, line + off, len - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) kp_fatal("at %s: cannot send to KILLPOINT_CTL: %s", name, strerror(errno));
    off += (size_t)n;
  }
}

/* Reads one line (without its '\n') into out. */
static void kp_read_line(const char *name, char *out, size_t cap) {
  for (;;) {
    char *nl = memchr(g_buf, '\n', g_len);
    if (nl != NULL) {
      size_t n = (size_t)(nl - g_buf);
      if (n >= cap) n = cap - 1;
      memcpy(out, g_buf, n);
      out[n] = '\0';
      size_t used = (size_t)(nl - g_buf) + 1;
      memmove(g_buf, g_buf + used, g_len - used);
      g_len -= used;
      return;
    }
    if (g_len == sizeof g_buf) kp_fatal("at %s: answer longer than %d bytes", name, KP_LINE_MAX);
    ssize_t n = recv(g_fd, g_buf + g_len, sizeof g_buf - g_len, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) kp_fatal("at %s: EOF on KILLPOINT_CTL", name);
    if (n < 0) kp_fatal("at %s: cannot read from KILLPOINT_CTL: %s", name, strerror(errno));
    g_len += (size_t)n;
  }
}

static void kp_ensure_connected(const char *name) {
  pid_t pid = getpid();
  if (g_fd >= 0 && g_pid != pid) { /* a child that did not go through fork()'s handlers */
    kp_real_close(g_fd);
    g_fd = -1;
  }
  if (g_fd >= 0) return;
  const char *why;
  int fd = kp_connect(&why);
  if (fd < 0) {
    kp_fatal("at %s: cannot connect to KILLPOINT_CTL=%s: %s", name, kp_ctl(),
             why != NULL ? why : strerror(errno));
  }
  __atomic_store_n(&g_fd, fd, __ATOMIC_RELEASE);
  g_pid = pid;
  g_len = 0;
}

/* Sends the SEEN lines not sent yet. Requires g_mu. */
static void kp_flush_seen(const char *name) {
  if (g_out_len == 0) return;
  kp_ensure_connected(name);
  kp_send_line(name, g_out, g_out_len);
  g_out_len = 0;
}

static void kp_queue_seen(const kp_point *p) {
  char line[KP_LINE_MAX + 64];
  int n = p->is_write ? snprintf(line, sizeof line, "SEEN %s %d %llu%s%s\n", p->name, (int)kp_pid(),
                                 p->bytes, p->unseen != NULL ? " unseen:" : "",
                                 p->unseen != NULL ? p->unseen : "")
                      : snprintf(line, sizeof line, "SEEN %s %d%s\n", p->name, (int)kp_pid(),
                                 p->excl ? " excl" : "");
  if (n < 0 || (size_t)n >= sizeof line) kp_fatal("at %s: line too long", p->name);
  if (g_out_len + (size_t)n > sizeof g_out) kp_flush_seen(p->name);
  memcpy(g_out + g_out_len, line, (size_t)n);
  g_out_len += (size_t)n;
}

/* FNV-1a over op, a NUL and path; never 0 (0 marks a free slot). */
static unsigned long long kp_outside_hash(const char *op, const char *path) {
  unsigned long long h = 1469598103934665603ULL;
  for (const char *s = op;; ++s) {
    h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    if (*s == '\0') break;
  }
  for (const char *s = path; *s != '\0'; ++s) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
  return h != 0 ? h : 1;
}

/* 1 when the pair was reported before; else records it (requires g_mu). */
static int kp_outside_seen_before(unsigned long long h) {
  if (g_outside_count >= KP_OUTSIDE_SLOTS * 3 / 4) return 0;
  for (unsigned i = (unsigned)(h % KP_OUTSIDE_SLOTS);; i = (i + 1) % KP_OUTSIDE_SLOTS) {
    if (g_outside_seen[i] == h) return 1;
    if (g_outside_seen[i] == 0) {
      g_outside_seen[i] = h;
      ++g_outside_count;
      return 0;
    }
  }
}

/* "OUTSIDE <op> <pid> <path>\n" in line; its length, or 0 when it does not fit. */
static size_t kp_outside_line(char *line, size_t cap, const char *op, const char *path) {
  static const char hex[] = "0123456789ABCDEF";
  int n = snprintf(line, cap, "OUTSIDE %s %d ", op, (int)kp_pid());
  if (n < 0 || (size_t)n >= cap) return 0;
  size_t len = (size_t)n;
  for (const unsigned char *s = (const unsigned char *)path; *s != '\0'; ++s) {
    if (len + 4 >= cap) return 0;
    if (*s <= ' ' || *s > '~' || *s == '%') {
      line[len++] = '%';
      line[len++] = hex[*s >> 4];
      line[len++] = hex[*s & 15];
    } else {
      line[len++] = (char)*s;
    }
  }
  line[len++] = '\n';
  return len;
}

void kp_channel_outside(const char *op, const char *path) {
  char line[KP_LINE_MAX];
  size_t n = kp_outside_line(line, sizeof line, op, path);
  if (n == 0) return;
  char name[32];
  snprintf(name, sizeof name, "OUTSIDE %s", op); /* for an error message */
  pthread_mutex_lock(&g_mu);
  if (!kp_outside_seen_before(kp_outside_hash(op, path))) {
    if (g_out_len + n > sizeof g_out) kp_flush_seen(name);
    memcpy(g_out + g_out_len, line, n);
    g_out_len += n;
    kp_flush_seen(name);
  }
  pthread_mutex_unlock(&g_mu);
}

/* At exit nothing may change the job's exit status: a harness that is gone loses the lines. */
void kp_channel_flush_at_exit(void) {
  if (!g_one_way || pthread_mutex_trylock(&g_mu) != 0) return; /* a thread is mid-exchange */
  if (g_out_len > 0 && g_fd >= 0 && g_pid != getpid()) g_fd = -1;
  if (g_out_len > 0 && g_fd < 0) {
    const char *why;
    int fd = kp_connect(&why);
    if (fd >= 0) {
      g_fd = fd;
      g_pid = getpid();
    }
  }
  for (size_t off = 0; g_fd >= 0 && off < g_out_len;) {
    ssize_t n = send(g_fd, g_out + off, g_out_len - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    off += (size_t)n;
  }
  g_out_len = 0;
  pthread_mutex_unlock(&g_mu);
}

/* v1.7: where a write lands in its file, asked only when its HIT is sent (a one-way point needs
 * no offset, and an lseek per write would cost every job): the file's size for an append (which
 * Linux does even for pwrite on an O_APPEND fd), else the call's offset, else the fd's position.
 * -1 when unknown. */
static long long kp_write_offset(const kp_point *p) {
  if (p->offset_fd < 0 || p->unseen != NULL) return -1;
  int status = fcntl(p->offset_fd, F_GETFL);
  if (p->append || (status >= 0 && (status & O_APPEND) != 0)) {
    struct stat st;
    return fstat(p->offset_fd, &st) == 0 ? (long long)st.st_size : -1;
  }
  if (p->offset >= 0) return p->offset;
  off_t pos = lseek(p->offset_fd, 0, SEEK_CUR);
  return pos >= 0 ? (long long)pos : -1;
}

static void kp_exchange(const char *kind, kp_point *p, int with_bytes, unsigned long long bytes,
                        char *answer, size_t cap) {
  char line[KP_LINE_MAX + 96];
  int hit = kind[0] == 'H';
  int unseen = p->unseen != NULL && hit;
  char at[32] = "";
  long long offset = hit && with_bytes ? kp_write_offset(p) : -1;
  if (offset >= 0) snprintf(at, sizeof at, " at:%lld", offset);
  int n = with_bytes
              ? snprintf(line, sizeof line, "%s %s %d %llu%s%s%s\n", kind, p->name, (int)getpid(),
                         bytes, at, unseen ? " unseen:" : "", unseen ? p->unseen : "")
              : snprintf(line, sizeof line, "%s %s %d%s\n", kind, p->name, (int)getpid(),
                         p->excl && hit ? " excl" : "");
  if (n < 0 || (size_t)n >= sizeof line) kp_fatal("at %s: line too long", p->name);
  /* Queued SEEN lines and this line leave in one send. */
  if (g_out_len + (size_t)n > sizeof g_out) kp_flush_seen(p->name);
  memcpy(g_out + g_out_len, line, (size_t)n);
  g_out_len += (size_t)n;
  kp_flush_seen(p->name);
  kp_read_line(p->name, answer, cap);
}

void kp_point_hit(kp_point *p) {
  p->answer = KP_CONTINUE;
  p->locked = 0;
  if (!p->armed) return;
  char answer[KP_LINE_MAX];
  if (p->bytes > KP_BYTES_MAX) p->bytes = KP_BYTES_MAX;
  pthread_mutex_lock(&g_mu);
  if (kp_is_one_way(p)) {
    kp_queue_seen(p);
    pthread_mutex_unlock(&g_mu);
    return;
  }
  kp_ensure_connected(p->name);
  kp_exchange("HIT", p, p->is_write, p->bytes, answer, sizeof answer);
  if (strcmp(answer, "CONTINUE") == 0) {
    pthread_mutex_unlock(&g_mu);
    return;
  }
  if (strcmp(answer, "AFTER") == 0) {
    p->answer = KP_AFTER;
  } else if (strncmp(answer, "PARTIAL ", 8) == 0 && p->is_write) {
    char *end;
    errno = 0;
    unsigned long long n = strtoull(answer + 8, &end, 10);
    if (answer[8] < '0' || answer[8] > '9' || *end != '\0' || errno != 0) {
      kp_fatal("at %s: bad answer '%s'", p->name, answer);
    }
    p->answer = KP_PARTIAL;
    p->partial = n;
  } else if (strncmp(answer, "ERROR", 5) == 0 && (answer[5] == ' ' || answer[5] == '\0')) {
    kp_fatal("at %s: %s", p->name, answer);
  } else {
    kp_fatal("at %s: unexpected answer '%s'", p->name, answer);
  }
  p->locked = 1; /* the channel stays ours until DONE is answered */
}

void kp_point_done(kp_point *p, unsigned long long done_bytes) {
  if (!p->locked) return;
  char answer[KP_LINE_MAX];
  kp_exchange("DONE", p, p->is_write, done_bytes, answer, sizeof answer);
  if (strcmp(answer, "CONTINUE") != 0) {
    if (strncmp(answer, "ERROR", 5) == 0) kp_fatal("at %s (DONE): %s", p->name, answer);
    kp_fatal("at %s (DONE): unexpected answer '%s'", p->name, answer);
  }
  p->locked = 0;
  pthread_mutex_unlock(&g_mu);
}

void kp_channel_forget_fds(unsigned lo, unsigned hi) {
  int fd = __atomic_load_n(&g_fd, __ATOMIC_ACQUIRE);
  if (fd >= 0 && (unsigned)fd >= lo && (unsigned)fd <= hi) {
    __atomic_compare_exchange_n(&g_fd, &fd, -1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
  }
}

void kp_channel_atfork_child(void) {
  pthread_mutex_init(&g_mu, NULL);
  if (g_fd >= 0) kp_real_close(g_fd);
  g_fd = -1;
  g_len = 0;
  g_out_len = 0; /* the parent's lines are the parent's to send */
}
