// What a machine charges for the things killpoint's tests do most: a first write to a fresh page
// (a page fault), fork and spawn. The CI timings of one tree differ by twice and more from one
// VM to the next, and these say which kind of VM a log came from (docs/ci.md, "The machine").
// scripts/machine-probe.sh compiles and runs it.
#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char** environ;

static double Now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

// Microseconds per 4 KiB page to write SIZE bytes of fresh memory.
static double WritePerPage(size_t size) {
  double start = Now();
  char* p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    perror("machine-probe: mmap");
    exit(1);
  }
  memset(p, 1, size);
  double us = (Now() - start) * 1e6 / (double)(size / 4096);
  munmap(p, size);
  return us;
}

int main(void) {
  const size_t kSize = 64u << 20;
  const int kRounds = 100;
  double fault = WritePerPage(kSize);

  double start = Now();
  for (int i = 0; i < kRounds; ++i) {
    pid_t child = fork();
    if (child == 0) _exit(0);
    waitpid(child, NULL, 0);
  }
  double fork_ms = (Now() - start) * 1e3 / kRounds;

  start = Now();
  for (int i = 0; i < kRounds; ++i) {
    char* argv[] = {"true", NULL};
    pid_t child;
    if (posix_spawnp(&child, "true", NULL, NULL, argv, environ) != 0) {
      perror("machine-probe: posix_spawnp true");
      return 1;
    }
    waitpid(child, NULL, 0);
  }
  double spawn_ms = (Now() - start) * 1e3 / kRounds;

  printf(
      "machine: %ld cores; a fresh page written %.2f us; fork+exit+wait %.2f ms; "
      "spawn of true %.2f ms\n",
      sysconf(_SC_NPROCESSORS_ONLN), fault, fork_ms, spawn_ms);
  return 0;
}
