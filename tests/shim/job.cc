#include "job.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace killpoint::shim_testing {
namespace {

constexpr std::chrono::seconds kJobTimeout{120};

std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (std::string& s : strings) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const JobResult& result) {
  return os << "{exit_code=" << result.exit_code << " term_signal=" << result.term_signal
            << (result.timed_out ? " TIMED OUT" : "") << "\n--- stdout:\n"
            << result.out << "--- stderr:\n"
            << result.err << "}";
}

std::string ShimPath() { return std::string(KILLPOINT_BIN_DIR) + "/libkillpoint_shim.so"; }

std::string MakeTempRoot(const std::string& name) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/" + name + "-XXXXXX";
  return ::mkdtemp(pattern.data()) != nullptr ? pattern : "";
}

JobSpec SandboxJob(std::vector<std::string> argv, const std::string& sandbox,
                   const std::string& output_dir, std::map<std::string, std::string> env,
                   FakeHarness* harness) {
  JobSpec spec;
  spec.argv = std::move(argv);
  spec.cwd = sandbox;
  spec.output_dir = output_dir;
  spec.env = std::move(env);
  spec.env["KILLPOINT_WORKDIR"] = sandbox;
  if (harness != nullptr) spec.env["KILLPOINT_CTL"] = harness->address();
  return spec;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool Exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

JobResult RunJob(const JobSpec& spec, FakeHarness* harness) {
  static std::atomic<int> counter{0};
  std::string base = spec.output_dir + "/job-" + std::to_string(++counter);
  std::string out_path = base + ".out", err_path = base + ".err";

  // Everything the child needs is built before fork(): after it, only async-signal-safe calls.
  std::vector<std::string> argv = spec.argv;
  std::vector<std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    if (std::strncmp(*entry, "KILLPOINT_", 10) != 0 &&
        std::strncmp(*entry, "LD_PRELOAD=", 11) != 0) {
      env.emplace_back(*entry);
    }
  }
  if (spec.preload) env.push_back("LD_PRELOAD=" + ShimPath());
  for (const auto& [name, value] : spec.env) env.push_back(name + "=" + value);
  std::vector<char*> argv_ptrs = Pointers(argv), env_ptrs = Pointers(env);
  const char* cwd = spec.cwd.c_str();

  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::setpgid(0, 0);
    int in = ::open("/dev/null", O_RDONLY);
    int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0 || err < 0 || ::dup2(in, 0) < 0 || ::dup2(out, 1) < 0 ||
        ::dup2(err, 2) < 0 || ::chdir(cwd) != 0) {
      ::_exit(126);
    }
    ::close(in);
    ::close(out);
    ::close(err);
    ::execve(argv_ptrs[0], argv_ptrs.data(), env_ptrs.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also in the parent, so that the group exists when we return
  if (harness != nullptr) harness->SetGroup(pid);

  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  bool timed_out = false;
  std::thread watchdog([&] {
    std::unique_lock lock(mu);
    if (!cv.wait_for(lock, kJobTimeout, [&] { return done; })) {
      timed_out = true;
      ::kill(-pid, SIGKILL);
    }
  });
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  {
    std::lock_guard lock(mu);
    done = true;
  }
  cv.notify_all();
  watchdog.join();
  // One-way lines (v1.2) may still be on their way: let the harness read to every EOF.
  if (harness != nullptr) harness->WaitIdle();

  JobResult result;
  result.timed_out = timed_out;
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.term_signal = WTERMSIG(status);
  result.out = ReadFile(out_path);
  result.err = ReadFile(err_path);
  return result;
}

}  // namespace killpoint::shim_testing
