// Spawn with Boost.Process in a new process group; wait on a pidfd so that a timeout needs
// no polling and no sleeping.
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <boost/process.hpp>
#include <boost/process/extend.hpp>
#include <cerrno>
#include <cstring>

#include "run/process.h"

namespace killpoint {
namespace {

namespace bp = boost::process;

// Runs in the child between fork and exec.
struct NewProcessGroup : bp::extend::handler {
  template <class Executor>
  void on_exec_setup(Executor&) const {
    ::setpgid(0, 0);
  }
};

bp::environment MakeEnvironment(const std::map<std::string, std::string>& extra) {
  bp::environment env = boost::this_process::environment();
  std::vector<std::string> stale;
  for (const auto& entry : env) {
    if (entry.get_name().rfind("KILLPOINT_", 0) == 0) stale.push_back(entry.get_name());
  }
  for (const auto& name : stale) env.erase(name);
  for (const auto& [k, v] : extra) env[k] = v;
  return env;
}

class PosixProcess : public RunningProcess {
 public:
  PosixProcess(bp::child child, int pidfd) : child_(std::move(child)), pidfd_(pidfd) {}
  ~PosixProcess() override {
    if (child_.valid() && !reaped_) {
      KillGroup();
      std::error_code ec;
      child_.wait(ec);
    }
    if (pidfd_ >= 0) ::close(pidfd_);
  }

  int pid() const override { return child_.id(); }

  void KillGroup() override {
    if (reaped_.load()) return;
    // Before the child's setpgid has run, the group does not exist yet: kill the child itself.
    if (::killpg(child_.id(), SIGKILL) != 0 && errno == ESRCH) ::kill(child_.id(), SIGKILL);
  }

  ExitStatus Wait(std::chrono::milliseconds timeout) override {
    bool timed_out = !WaitReadable(timeout);
    if (timed_out) KillGroup();
    // The leader is a zombie now (or about to be): kill what it left in its group, then reap.
    KillGroup();
    std::error_code ec;
    child_.wait(ec);
    reaped_ = true;
    int raw = child_.native_exit_code();
    ExitStatus s;
    s.timed_out = timed_out;
    if (WIFEXITED(raw)) {
      s.exited = true;
      s.code = WEXITSTATUS(raw);
    } else if (WIFSIGNALED(raw)) {
      s.signal = WTERMSIG(raw);
    }
    return s;
  }

 private:
  bool WaitReadable(std::chrono::milliseconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() < 0) return false;
      pollfd p{pidfd_, POLLIN, 0};
      int rc = ::poll(&p, 1, static_cast<int>(left.count()));
      if (rc > 0) return true;
      if (rc == 0) return false;
      if (errno != EINTR) return true;  // let wait() report what happened
    }
  }

  bp::child child_;
  int pidfd_;
  std::atomic<bool> reaped_{false};
};

}  // namespace

std::string ExitStatus::Describe() const {
  if (timed_out) return "killed at its timeout";
  if (exited) return "exited with code " + std::to_string(code);
  return std::string("killed by signal ") + std::to_string(signal) + " (" + strsignal(signal) + ")";
}

Result<std::unique_ptr<RunningProcess>> Spawn(const SpawnRequest& r) {
  if (r.argv.empty() || r.argv[0].empty()) return Error::BadInput("empty job command");
  boost::filesystem::path exe = r.argv[0];
  if (r.argv[0].find('/') == std::string::npos) exe = bp::search_path(r.argv[0]);
  if (exe.empty() || ::access(exe.c_str(), X_OK) != 0) {
    return Error::BadInput("job program '" + r.argv[0] + "' is missing or not executable");
  }
  std::vector<std::string> args(r.argv.begin() + 1, r.argv.end());
  std::error_code ec;
  bp::child child(exe, bp::args(args), MakeEnvironment(r.env), bp::start_dir(r.cwd.string()),
                  bp::std_in<bp::null, bp::std_out> r.stdout_path.string(),
                  bp::std_err > r.stderr_path.string(), NewProcessGroup{}, ec);
  if (ec) return Error::BadInput("cannot start job '" + r.argv[0] + "': " + ec.message());
  int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, child.id(), 0));
  if (pidfd < 0) {
    ::killpg(child.id(), SIGKILL);
    child.wait(ec);
    return Error::Harness(std::string("pidfd_open failed: ") + std::strerror(errno));
  }
  return std::unique_ptr<RunningProcess>(new PosixProcess(std::move(child), pidfd));
}

}  // namespace killpoint
