/* What the C jobs of tests/foreign share, so that each job's file is its save alone: the state
 * (sent.json, {"sent":["2026-11-01",...]}) and the publish (HTTP/1.1 on a raw socket). A missing
 * or empty sent.json is "nothing sent yet"; one that does not parse makes the job refuse
 * (exit 3) rather than guess. Each job defines _GNU_SOURCE before including this. */
#ifndef KILLPOINT_FOREIGN_EXPORT_H_
#define KILLPOINT_FOREIGN_EXPORT_H_

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define STATE "sent.json"
#define STATE_MAX 4096

static inline void die(const char *what) {
  fprintf(stderr, "export: %s: %s\n", what, strerror(errno));
  exit(1);
}

static inline const char *env(const char *name) {
  if (getenv(name) == NULL) fprintf(stderr, "export: %s is not set\n", name), exit(2);
  return getenv(name);
}

/* Reads sent.json into buf (NUL-terminated, trailing blanks dropped); "" when missing. */
static inline void load_state(char *buf) {
  buf[0] = '\0';
  int fd = open(STATE, O_RDONLY);
  if (fd < 0 && errno == ENOENT) return;
  if (fd < 0) die("open " STATE);
  ssize_t n, len = 0;
  while ((n = read(fd, buf + len, STATE_MAX - 1 - len)) > 0) len += n;
  if (n < 0) die("read " STATE);
  close(fd);
  if (memchr(buf, '\0', len) != NULL) len = 0, buf[len++] = '?'; /* zeros: corrupt */
  while (len > 0 && strchr(" \n\r\t", buf[len - 1]) != NULL) --len;
  buf[len] = '\0';
}

/* 1 when buf lists date. Exits 3 when buf is not {"sent":[...]}. */
static inline int state_has(const char *buf, const char *date) {
  if (buf[0] == '\0') return 0;
  size_t len = strlen(buf);
  if (strncmp(buf, "{\"sent\":[", 9) != 0 || len < 11 || strcmp(buf + len - 2, "]}") != 0) {
    fprintf(stderr, "export: %s is corrupt (%zu bytes), refusing to guess\n", STATE, len);
    exit(3);
  }
  char quoted[64];
  return snprintf(quoted, sizeof quoted, "\"%s\"", date) > 0 && strstr(buf, quoted) != NULL;
}

/* The new state, old + date, into out; returns its length. */
static inline size_t state_add(char *out, const char *old, const char *date) {
  if (old[0] == '\0') return (size_t)snprintf(out, STATE_MAX, "{\"sent\":[\"%s\"]}\n", date);
  size_t keep = strlen(old) - 2; /* up to the closing "]}" */
  const char *sep = old[keep - 1] == '[' ? "" : ",";
  return (size_t)snprintf(out, STATE_MAX, "%.*s%s\"%s\"]}\n", (int)keep, old, sep, date);
}

static inline void write_all(int fd, const char *buf, size_t n) {
  for (ssize_t w; n > 0; buf += w, n -= (size_t)w)
    if ((w = write(fd, buf, n)) < 0) die("write");
}

/* POST {"key": DATE, "biz_date": DATE, "payload": ...} to $KILLPOINT_DOWNSTREAM/publish
 * (http://IP:PORT); returns 0 when the answer is 200. */
static inline int publish(const char *date) {
  char host[64], body[256], req[768], answer[1024];
  int port, status = 0;
  struct sockaddr_in addr = {.sin_family = AF_INET};
  if (sscanf(env("KILLPOINT_DOWNSTREAM"), "http://%63[^:/]:%d", host, &port) != 2 ||
      inet_pton(AF_INET, host, &addr.sin_addr) != 1)
    return fprintf(stderr, "export: KILLPOINT_DOWNSTREAM is not http://IP:PORT\n"), 1;
  addr.sin_port = htons((unsigned short)port);
  int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0 || connect(s, (struct sockaddr *)&addr, sizeof addr) != 0) die("connect");
  int blen = snprintf(body, sizeof body,
                      "{\"key\":\"%s\",\"biz_date\":\"%s\",\"payload\":{\"report\":\"daily\"}}",
                      date, date);
  write_all(
      s, req,
      (size_t)snprintf(req, sizeof req,
                       "POST /publish HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: "
                       "application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
                       host, port, blen, body));
  ssize_t n, len = 0;
  while ((n = recv(s, answer + len, sizeof answer - 1 - len, 0)) > 0) len += n;
  answer[len] = '\0';
  close(s);
  if (sscanf(answer, "HTTP/1.%*d %d", &status) == 1 && status == 200)
    return printf("published %s\n", date) < 0;
  return fprintf(stderr, "export: publish answered '%.40s'\n", answer), 1;
}

/* The job: FORM (argv[1]) one of FORMS ("a|b"); already sent -> 0; else save the old state +
 * the date with save(FORM, ...), then publish. */
static inline int run_export(int argc, char **argv, const char *forms,
                             void (*save)(const char *, const char *, size_t)) {
  const char *form = argc == 2 ? argv[1] : "";
  size_t len = strlen(form);
  int known = 0;
  for (const char *p = forms; *form && p; p = strchr(p, '|'), p = p ? p + 1 : p)
    known |= strncmp(p, form, len) == 0 && (p[len] == '|' || p[len] == '\0');
  if (!known) return fprintf(stderr, "usage: %s %s\n", argv[0], forms), 2;
  const char *date = env("KILLPOINT_BIZ_DATE");
  if (chdir(env("KILLPOINT_WORKDIR")) != 0) die("chdir");
  char old[STATE_MAX], next[STATE_MAX];
  load_state(old);
  if (state_has(old, date)) return printf("%s was already sent\n", date) < 0;
  save(form, next, state_add(next, old, date));
  return publish(date);
}

#endif /* KILLPOINT_FOREIGN_EXPORT_H_ */
