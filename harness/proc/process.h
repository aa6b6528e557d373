// Spawning a job attempt and waiting for it. A job runs in its own process group so that a
// kill reaches everything it started, and carries a tag in its environment so that whatever
// left the group (setsid, a double fork) is found and killed too (process_tag.h). Its output
// goes through pipes the waiter drains into bounded files. The real implementation is
// process_posix.cc.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "proc/interrupt.h"
#include "proc/stop_token.h"
#include "util/result.h"

namespace killpoint {

// The sandbox's limits, unless a scenario sets its own.
inline constexpr int64_t kDefaultMaxFileBytes = int64_t{1} << 30;    // RLIMIT_FSIZE: 1 GiB a file
inline constexpr int64_t kDefaultMaxOutputBytes = int64_t{8} << 20;  // captured per stream

struct SpawnRequest {
  std::vector<std::string> argv;
  std::map<std::string, std::string> env;  // added to the harness's environment
  std::filesystem::path cwd;
  std::filesystem::path stdout_path;  // captured output goes to these files
  std::filesystem::path stderr_path;
  // The largest file the job may write (RLIMIT_FSIZE): a write beyond it kills the job with
  // SIGXFSZ (or fails with EFBIG if the job ignores that signal). 0: no limit.
  int64_t max_file_bytes = kDefaultMaxFileBytes;
  // Bytes kept of each of stdout and stderr; the rest is dropped, and a last line says so.
  int64_t max_output_bytes = kDefaultMaxOutputBytes;
  // Once it stops, a Wait ends at once with `interrupted` set (and kills the group).
  StopToken stop = InterruptToken();
  // A file system the job's files fill that must keep `min_free_bytes` free (a RAM sandbox:
  // RLIMIT_FSIZE caps one file, not their total, and RAM is the machine's): Wait looks at it
  // every kFreeSpaceCheck and kills the group once less is free (`sandbox_full`). Empty: none.
  std::filesystem::path watch_free = {};
  int64_t min_free_bytes = 0;
};

inline constexpr std::chrono::milliseconds kFreeSpaceCheck{100};

// How an attempt ended. Exactly one of exited/signaled is true.
struct ExitStatus {
  bool exited = false;
  int code = -1;              // exit code when exited, else -1
  int signal = 0;             // terminating signal when signaled, else 0
  bool timed_out = false;     // the harness killed it at its timeout
  bool interrupted = false;   // the harness killed it because it got SIGINT/SIGTERM (interrupt.h)
  int stray_killed = 0;       // processes it left behind, outside its group or not, killed after it
  bool sandbox_full = false;  // killed because SpawnRequest::watch_free fell below its minimum

  // 128 + signal for a signal, as shells report it; the exit code otherwise.
  int ShellCode() const { return exited ? code : 128 + signal; }
  std::string Describe() const;
};

class RunningProcess {
 public:
  virtual ~RunningProcess() = default;
  virtual int pid() const = 0;
  // The job's environment tag (process_tag.h): every process it starts carries it.
  virtual const std::string& tag() const = 0;
  // SIGKILL to the whole process group. Safe to call until Wait returned; idempotent.
  virtual void KillGroup() = 0;
  // Sends `signal` to the whole process group (SIGSTOP, SIGCONT for a pause). Safe to call
  // until Wait returned; does nothing after.
  virtual void SignalGroup(int signal) = 0;
  // Blocks until the process exits (true) or `timeout` passes (false), draining its output;
  // kills nothing and reaps nothing: Wait must follow. Not concurrently with Wait.
  virtual bool WaitForExit(std::chrono::milliseconds timeout) = 0;
  // Blocks until the process exits or `timeout` passes; at the timeout the group is killed
  // and the result has timed_out set. The request's stop token (by default a SIGINT/SIGTERM to
  // the harness, interrupt.h) ends the wait the same way, with interrupted set. After Wait the
  // group and every tagged process are killed and gone, the child is reaped and its captured
  // output is complete.
  virtual ExitStatus Wait(std::chrono::milliseconds timeout) = 0;
};

// The child gets PR_SET_PDEATHSIG=SIGKILL: if the harness dies (even of SIGKILL) the job's
// leader dies with it. The kernel sends it when the *thread* that spawned the child exits, so
// call Spawn from a thread that outlives the child (the suite spawns from the main thread).
// What the job itself started is not covered by that; orphan_guard.h kills those.
// Errors (missing or non-executable program) are BadInput naming the program.
Result<std::unique_ptr<RunningProcess>> Spawn(const SpawnRequest& request);

// The program a bare name (no '/') starts, as Spawn finds it: the first executable of $PATH
// like execvp; "" when there is none.
std::string SearchPath(const std::string& name);

// How the trial driver starts processes (TrialOptions::spawner): PosixSpawner() in the harness,
// a fake that returns scripted RunningProcess objects in the driver's unit tests
// (tests/harness/run/trial_driver_test.cc). Called from the driver's thread and, for an
// overlap's second instance, from its hold driver's thread.
class Spawner {
 public:
  virtual ~Spawner() = default;
  virtual Result<std::unique_ptr<RunningProcess>> Spawn(const SpawnRequest& request) = 0;
};

// The real one: Spawn above. Lives until the process exits.
Spawner& PosixSpawner();

}  // namespace killpoint
