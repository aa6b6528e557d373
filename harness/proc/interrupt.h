// SIGINT and SIGTERM to the harness: the first asks the run to stop, the second ends it at once.
//
// The first signal only records itself in the harness's StopSource (proc/stop_token.h): the
// handler stores the signal number in a lock-free atomic and writes one byte to a self-pipe
// (both async-signal-safe). Nothing is interrupted in the middle: the suite checks its stop
// token (InterruptToken() unless a test gives another) between trials, and RunningProcess::Wait
// polls the token's descriptor beside the job's pidfd, so a running attempt is killed (its group
// and its tagged processes) as soon as the signal arrives. The byte is never read: the pipe stays
// readable, so every later wait returns at once too. The suite then writes the finished trials'
// results (atomically, marked partial) and the CLI exits 128 + the signal (130, 143).
//
// A second SIGINT or SIGTERM while that shutdown runs: the handler SIGKILLs the process group
// of the attempt in flight, if any (ForegroundGroup), and calls _exit(128 + signal) (both
// async-signal-safe). Nothing is half-written even then: results.json is only ever replaced by a
// rename and the journals only ever appended by one write per trial (docs/hardening.md).
#pragma once

#include <sys/types.h>

#include "proc/stop_token.h"

namespace killpoint {

// Installs the handlers for SIGINT and SIGTERM and creates the self-pipe. Idempotent.
// Call from the main thread before any other thread starts (threads inherit the mask).
void InstallInterruptHandlers();

// The token the handlers stop: the default of SuiteOptions, TrialOptions and SpawnRequest.
// Valid before the handlers are installed (it never stops then, but by RequestInterrupt).
StopToken InterruptToken();

// 0 until a SIGINT or SIGTERM arrived, then the first one's number: InterruptToken().signal().
// Async-signal-safe.
int InterruptSignal();

// A descriptor that polls readable (POLLIN) once a signal arrived; -1 when the handlers are
// not installed (then nothing ever interrupts).
int InterruptFd();

// "SIGINT", "SIGTERM" or "signal N".
const char* InterruptName(int signal);

// What the handler does, for tests: records `signal` as a first signal would (a second call
// before ResetInterruptForTests ends the process, as a second signal does).
void RequestInterrupt(int signal);
// Forgets the signal and empties the self-pipe, for tests.
void ResetInterruptForTests();

// The process groups of the attempts in flight (one per parallel trial); a second signal
// SIGKILLs them all. The process layer adds a group before each wait and removes it after.
// Up to kForegroundSlots at once; beyond, a group is not tracked (the orphan guard and the
// parent-death signal still end it when the harness exits).
inline constexpr int kForegroundSlots = 256;
void AddForegroundGroup(pid_t group);
void RemoveForegroundGroup(pid_t group);

}  // namespace killpoint
