// Spawning a job attempt and waiting for it. A job runs in its own process group so that a
// kill reaches everything it started. The real implementation is process_posix.cc.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "util/result.h"

namespace killpoint {

struct SpawnRequest {
  std::vector<std::string> argv;
  std::map<std::string, std::string> env;  // added to the harness's environment
  std::filesystem::path cwd;
  std::filesystem::path stdout_path;  // captured output goes to these files
  std::filesystem::path stderr_path;
};

// How an attempt ended. Exactly one of exited/signaled is true.
struct ExitStatus {
  bool exited = false;
  int code = -1;    // exit code when exited, else -1
  int signal = 0;   // terminating signal when signaled, else 0
  bool timed_out = false;  // the harness killed it at its timeout

  // 128 + signal for a signal, as shells report it; the exit code otherwise.
  int ShellCode() const { return exited ? code : 128 + signal; }
  std::string Describe() const;
};

class RunningProcess {
 public:
  virtual ~RunningProcess() = default;
  virtual int pid() const = 0;
  // SIGKILL to the whole process group. Safe to call until Wait returned; idempotent.
  virtual void KillGroup() = 0;
  // Blocks until the process exits or `timeout` passes; at the timeout the group is killed
  // and the result has timed_out set. After Wait the group is killed and the child reaped.
  virtual ExitStatus Wait(std::chrono::milliseconds timeout) = 0;
};

// Errors (missing or non-executable program) are BadInput naming the program.
Result<std::unique_ptr<RunningProcess>> Spawn(const SpawnRequest& request);

}  // namespace killpoint
