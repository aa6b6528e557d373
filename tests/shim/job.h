// Runs a real program as the harness runs a job: fork/exec in its own process group, in a
// chosen directory, with the shim in LD_PRELOAD, stdin from /dev/null, stdout and stderr into
// files, and waitpid (a watchdog kills the group if it outlives a generous bound, so a broken
// shim fails the test instead of hanging it; nothing sleeps).
#ifndef KILLPOINT_TESTS_SHIM_JOB_H_
#define KILLPOINT_TESTS_SHIM_JOB_H_

#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "fake_harness.h"

namespace killpoint::shim_testing {

struct JobSpec {
  std::vector<std::string> argv;  // argv[0]: the program's path
  std::string cwd;
  // Set in the child's environment, after every inherited KILLPOINT_* and LD_PRELOAD variable
  // was removed.
  std::map<std::string, std::string> env;
  bool preload = true;     // LD_PRELOAD=<bin>/libkillpoint_shim.so
  std::string output_dir;  // where the stdout and stderr files go
};

struct JobResult {
  int exit_code = -1;   // -1 when a signal ended it
  int term_signal = 0;  // 0 when it exited
  bool timed_out = false;
  std::string out;
  std::string err;
};

std::ostream& operator<<(std::ostream& os, const JobResult& result);

// The shim as built.
std::string ShimPath();
// A new empty folder $TMPDIR/NAME-XXXXXX (or under /tmp); "" when it cannot be made.
std::string MakeTempRoot(const std::string& name);
// A job run in `sandbox` as the harness runs one: that is its cwd and KILLPOINT_WORKDIR, with
// `env` added, KILLPOINT_CTL pointing at `harness` when given, its output files in `output_dir`.
JobSpec SandboxJob(std::vector<std::string> argv, const std::string& sandbox,
                   const std::string& output_dir, std::map<std::string, std::string> env,
                   FakeHarness* harness);
// The harness (when given) learns the job's process group before the job can hit anything
// that needs it.
JobResult RunJob(const JobSpec& spec, FakeHarness* harness);

std::string ReadFile(const std::string& path);
bool Exists(const std::string& path);

}  // namespace killpoint::shim_testing

#endif  // KILLPOINT_TESTS_SHIM_JOB_H_
