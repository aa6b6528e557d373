// Runs a real program for the tests: posix_spawn, in its own process group as under the
// harness, stdin from /dev/null, stdout and stderr into files, and waitpid (never a sleep).
#ifndef KILLPOINT_TESTS_JOBS_SUBPROCESS_H_
#define KILLPOINT_TESTS_JOBS_SUBPROCESS_H_

#include <sys/types.h>

#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace killpoint::testing {

struct SpawnSpec {
  std::vector<std::string> argv;  // argv[0] is the program's path.
  // Set in the child's environment. Every inherited KILLPOINT_* variable is removed first, so
  // the test's own environment cannot leak into the job.
  std::map<std::string, std::string> env;
  std::string output_dir;  // Where stdout and stderr files go; must exist.
};

struct ProcessResult {
  int exit_code = -1;   // -1 when a signal ended the process.
  int term_signal = 0;  // 0 when the process exited.
  std::string out;
  std::string err;
};

std::ostream& operator<<(std::ostream& os, const ProcessResult& result);

// A running child. Wait() must be called once; the destructor SIGKILLs and reaps a child that
// was never waited for, so a failing test does not leave it behind.
class Subprocess {
 public:
  explicit Subprocess(const SpawnSpec& spec);
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;
  ~Subprocess();

  pid_t pid() const { return pid_; }
  ProcessResult Wait();

 private:
  pid_t pid_ = -1;  // -1 once reaped.
  std::string out_path_;
  std::string err_path_;
};

// Spawns and waits.
ProcessResult RunProcess(const SpawnSpec& spec);

}  // namespace killpoint::testing

#endif  // KILLPOINT_TESTS_JOBS_SUBPROCESS_H_
