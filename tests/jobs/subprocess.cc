#include "subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "temp_dir.h"

extern char** environ;

namespace killpoint::testing {
namespace {

std::vector<std::string> ChildEnvironment(const std::map<std::string, std::string>& extra) {
  std::vector<std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    if (std::strncmp(*entry, "KILLPOINT_", 10) != 0) env.emplace_back(*entry);
  }
  for (const auto& [name, value] : extra) env.push_back(name + "=" + value);
  return env;
}

std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (std::string& s : strings) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
}

void Check(int rc, const char* what) {
  if (rc != 0) throw std::runtime_error(std::string(what) + ": " + std::strerror(rc));
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const ProcessResult& result) {
  return os << "{exit_code=" << result.exit_code << " term_signal=" << result.term_signal
            << "\n--- stdout:\n"
            << result.out << "--- stderr:\n"
            << result.err << "}";
}

Subprocess::Subprocess(const SpawnSpec& spec) {
  static std::atomic<int> counter{0};
  std::string base = spec.output_dir + "/proc-" + std::to_string(++counter);
  out_path_ = base + ".out";
  err_path_ = base + ".err";
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  Check(posix_spawn_file_actions_init(&actions), "posix_spawn_file_actions_init");
  Check(posix_spawnattr_init(&attr), "posix_spawnattr_init");
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  std::vector<std::string> argv = spec.argv;
  std::vector<std::string> env = ChildEnvironment(spec.env);
  int rc = posix_spawn(&pid_, argv.at(0).c_str(), &actions, &attr, Pointers(argv).data(),
                       Pointers(env).data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  Check(rc, ("posix_spawn " + argv[0]).c_str());
}

Subprocess::~Subprocess() {
  if (pid_ < 0) return;
  ::kill(-pid_, SIGKILL);
  Wait();
}

ProcessResult Subprocess::Wait() {
  int status = 0;
  pid_t rc;
  do {
    rc = ::waitpid(pid_, &status, 0);
  } while (rc < 0 && errno == EINTR);
  pid_ = -1;
  ProcessResult result;
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.term_signal = WTERMSIG(status);
  result.out = ReadFileOrEmpty(out_path_);
  result.err = ReadFileOrEmpty(err_path_);
  return result;
}

ProcessResult RunProcess(const SpawnSpec& spec) { return Subprocess(spec).Wait(); }

}  // namespace killpoint::testing
