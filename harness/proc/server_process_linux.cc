// fork, not vfork as proc/process_posix.cc: the child changes its user, which must not touch the
// harness's memory; it starts a few times per run, so the fork's cost does not matter. Between
// fork and exec the child calls only async-signal-safe functions on memory prepared before.
#include <arpa/inet.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/close_range.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "proc/server_log.h"
#include "proc/server_process.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;
constexpr std::chrono::milliseconds kServerPoll{10};

// argv and envp as execve wants them, built before the fork.
class ExecArgs {
 public:
  explicit ExecArgs(const ServerCommand& c) : args_(c.argv) {
    for (const auto& [k, v] : c.env) env_.push_back(k + "=" + v);
    for (auto& a : args_) argv_.push_back(a.data());
    argv_.push_back(nullptr);
    for (auto& e : env_) envp_.push_back(e.data());
    envp_.push_back(nullptr);
  }
  char** argv() { return argv_.data(); }
  char** envp() { return envp_.data(); }

 private:
  std::vector<std::string> args_, env_;
  std::vector<char*> argv_, envp_;
};

// The child, between fork and exec: async-signal-safe calls only.
[[noreturn]] void Child(ExecArgs& args, int log_fd, int cgroup_fd, pid_t parent, ServerUser user) {
  if (cgroup_fd >= 0) {
    [[maybe_unused]] ssize_t moved = ::write(cgroup_fd, "0", 1);  // before it can start anything
  }
  ::setpgid(0, 0);
  int null = ::open("/dev/null", O_RDONLY);
  if (null >= 0) ::dup2(null, STDIN_FILENO);
  ::dup2(log_fd, STDOUT_FILENO);
  ::dup2(log_fd, STDERR_FILENO);
  if (::geteuid() != user.uid) {
    if (::setgroups(0, nullptr) != 0 || ::setgid(user.gid) != 0 || ::setuid(user.uid) != 0) {
      ::_exit(126);
    }
  }
  // After the change of user, which clears it; and the harness may be gone already.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);
  ::syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC);
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int sig : {SIGPIPE, SIGINT, SIGHUP, SIGTERM, SIGQUIT}) ::signal(sig, SIG_DFL);
  ::execve(args.argv()[0], args.argv(), args.envp());
  ::_exit(127);
}

// The parent pid in /proc/PID/stat (after the command's closing parenthesis), and its state.
bool ReadStat(pid_t pid, pid_t& ppid, char& state) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return false;
  size_t close = line.rfind(')');
  if (close == std::string::npos || close + 4 >= line.size()) return false;
  state = line[close + 2];
  ppid = static_cast<pid_t>(std::atol(line.c_str() + close + 4));
  return true;
}

// `root` and its living descendants, parents before children.
std::vector<pid_t> ProcessTree(pid_t root) {
  std::map<pid_t, std::vector<pid_t>> children;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    pid_t pid = static_cast<pid_t>(std::atol(e.path().filename().c_str()));
    pid_t ppid = 0;
    char state = 0;
    if (pid > 0 && ReadStat(pid, ppid, state) && state != 'Z') children[ppid].push_back(pid);
  }
  std::vector<pid_t> out = {root};
  for (size_t i = 0; i < out.size(); ++i) {
    for (pid_t c : children[out[i]]) out.push_back(c);
  }
  return out;
}

// Gone, or a zombie (which holds no memory, no socket, no lock).
bool Ended(pid_t pid) {
  pid_t ppid = 0;
  char state = 0;
  return ::kill(pid, 0) != 0 || !ReadStat(pid, ppid, state) || state == 'Z';
}

}  // namespace

ServerUser ServerUserFor() {
  if (::geteuid() != 0) return {::geteuid(), ::getegid()};
  passwd* nobody = ::getpwnam("nobody");  // at start-up, before any server runs
  return nobody ? ServerUser{nobody->pw_uid, nobody->pw_gid} : ServerUser{65534, 65534};
}

Status GiveToServerUser(const fs::path& path) {
  ServerUser user = ServerUserFor();
  if (user.uid == ::geteuid()) return Ok();
  if (::chown(path.c_str(), user.uid, user.gid) != 0) {
    return Error::Harness("chown " + path.string() + ": " + std::strerror(errno));
  }
  // The folder it is in (the run's sandbox root, mode 0700) must let the server's user pass,
  // not list: o+x only.
  std::error_code ec;
  fs::permissions(path.parent_path(), fs::perms::others_exec, fs::perm_options::add, ec);
  if (ec) return Error::Harness("chmod o+x " + path.parent_path().string() + ": " + ec.message());
  return Ok();
}

Result<std::unique_ptr<ServerProcess>> StartServer(const ServerCommand& command) {
  ExecArgs args(command);
  int log_fd = ::open(command.log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0)
    return Error::Harness("cannot open " + command.log.string() + ": " + std::strerror(errno));
  ServerUser user = ServerUserFor();
  if (user.uid != ::geteuid() && ::fchown(log_fd, user.uid, user.gid) != 0) {
    // the log stays the harness's; the server writes to the descriptor it inherits anyway
  }
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid == 0) Child(args, log_fd, command.cgroup_procs_fd, parent, user);
  int fork_errno = errno;
  ::close(log_fd);
  if (pid < 0) return Error::Harness(std::string("fork: ") + std::strerror(fork_errno));
  ::setpgid(pid, pid);  // also here, so that Stop's killpg finds the group at once
  return std::make_unique<ServerProcess>(pid, command.log);
}

namespace {

std::mutex g_servers_mu;
std::set<pid_t> g_servers;  // guarded by g_servers_mu: every ServerProcess not yet reaped

}  // namespace

bool IsServerProcess(pid_t pid) {
  std::lock_guard lock(g_servers_mu);
  return g_servers.count(pid) > 0;
}

ServerProcess::ServerProcess(pid_t pid, std::filesystem::path log)
    : pid_(pid), log_(std::move(log)) {
  std::lock_guard lock(g_servers_mu);
  g_servers.insert(pid_);
}

void ServerProcess::Reaped() {
  reaped_ = true;
  std::lock_guard lock(g_servers_mu);
  g_servers.erase(pid_);
}

ServerProcess::~ServerProcess() { Stop(SIGQUIT); }

bool ServerProcess::Running() {
  if (reaped_) return false;
  int status = 0;
  pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_ || (r < 0 && errno == ECHILD)) Reaped();
  return !reaped_;
}

void ServerProcess::SignalAll(int signal) {
  if (reaped_) return;
  ::kill(pid_, signal);  // first: a stopped server forks no new process
  std::set<pid_t> sent = {pid_};
  for (int round = 0; round < 3; ++round) {  // until no new descendant shows up
    size_t before = sent.size();
    for (pid_t pid : ProcessTree(pid_)) {
      if (sent.insert(pid).second) ::kill(pid, signal);
    }
    if (sent.size() == before) return;
  }
}

void ServerProcess::KillAll() {
  if (reaped_) return;
  ::kill(pid_, SIGSTOP);
  std::vector<pid_t> all = ProcessTree(pid_);
  for (pid_t pid : all) ::kill(pid, SIGKILL);
  while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
  }
  Reaped();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (pid_t pid : all) {
    while (!Ended(pid) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ::waitpid(pid, nullptr, WNOHANG);  // the harness's, when it is their subreaper
  }
}

void ServerProcess::Stop(int signal, std::chrono::milliseconds patience) {
  if (reaped_) return;
  SignalAll(SIGCONT);  // a paused server (a server fault) must hear the signal
  ::kill(-pid_, signal);
  auto deadline = std::chrono::steady_clock::now() + patience;
  while (Running() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(kServerPoll);
  }
  ::kill(-pid_, SIGKILL);  // what is left of the group (a backend that outlived the postmaster)
  if (!reaped_) {
    while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
    Reaped();
  }
}

std::string ServerProcess::LogTail(size_t bytes) const {
  std::ifstream in(log_, std::ios::binary);
  return LogExcerpt(
      std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()), bytes);
}

Status RunServerTool(const ServerCommand& command, std::chrono::milliseconds patience) {
  auto started = StartServer(command);
  if (!started) return started.error();
  ServerProcess& p = *started.value();
  auto deadline = std::chrono::steady_clock::now() + patience;
  int status = 0;
  pid_t r = 0;
  while ((r = ::waitpid(p.pid(), &status, WNOHANG)) == 0 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(kServerPoll);
  }
  std::string what = command.argv[0];
  if (r == 0) {
    p.Stop(SIGKILL, std::chrono::milliseconds(0));
    return Error::Harness(what + " did not finish within " +
                          std::to_string(patience.count() / 1000) + " s: " + p.LogTail());
  }
  p.Stop(SIGKILL, std::chrono::milliseconds(0));  // the rest of its group, if any; reaped
  if (r < 0) return Error::Harness(what + ": waitpid: " + std::strerror(errno));
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return Ok();
  return Error::Harness(what + " failed (" +
                        (WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
                                           : "signal " + std::to_string(WTERMSIG(status))) +
                        "): " + p.LogTail());
}

Result<int> PickLoopbackPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Error::Harness(std::string("socket: ") + std::strerror(errno));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
            ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0;
  int err = errno;
  ::close(fd);
  if (!ok) return Error::Harness(std::string("cannot pick a loopback port: ") + std::strerror(err));
  return static_cast<int>(ntohs(a.sin_port));
}

}  // namespace killpoint
