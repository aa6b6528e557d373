// Spawn with Boost.Process in a new process group, with limits set between vfork and exec;
// wait on a pidfd (no polling, no sleeping) while draining the job's output pipes.

// Boost.Process 1.74 compiles bp::posix::use_vfork only where its config guesses that vfork is
// declared, from _XOPEN_SOURCE, and a C++ build's _GNU_SOURCE defeats that guess; glibc
// declares vfork with _GNU_SOURCE. Must come before any Boost.Process header.
#define BOOST_POSIX_HAS_VFORK 1
#include <linux/close_range.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <boost/process.hpp>
#include <boost/process/extend.hpp>
#include <boost/process/posix.hpp>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <string_view>

#include "proc/interrupt.h"
#include "proc/job_cgroup.h"
#include "proc/output_capture.h"
#include "proc/process.h"
#include "proc/process_tag.h"

namespace killpoint {
namespace {

namespace bp = boost::process;

// Runs in the child between vfork and exec: only system calls, no allocation, nothing written
// to memory but the child's own stack frame (it shares the harness's memory until the exec).
struct ChildSetup : bp::extend::handler {
  int stdout_fd, stderr_fd;
  int64_t max_file_bytes;
  char** envp;
  pid_t parent;              // the harness, before the vfork
  const sigset_t* job_mask;  // the spawning thread's mask, which the job starts with
  int cgroup_procs;          // the run's cgroup.procs (job_cgroup.h), -1: none
  const std::string*
      cwd;  // the job's working folder (empty: the harness's): entered, or the child fails

  template <class Executor>
  void on_setup(Executor& e) const {
    e.env = envp;  // what execve gets, as Boost's own bp::env does
  }

  template <class Executor>
  void on_exec_setup(Executor&) const {
    // Into the run's cgroup first, before the job can start anything (job_cgroup.h).
    if (cgroup_procs >= 0) {
      [[maybe_unused]] ssize_t moved = ::write(cgroup_procs, "0", 1);
    }
    ::setpgid(0, 0);
    // Die with the harness. Set after the fork, so the harness may have died already: then
    // the child has a new parent and must not run the job at all.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::syscall(SYS_exit_group, 127);
    ::dup2(stdout_fd, STDOUT_FILENO);  // the pipes' own fds are close-on-exec
    ::dup2(stderr_fd, STDERR_FILENO);
    // Boost's start_dir ignores chdir's failure, and the job then ran in the harness's own
    // folder (a job that deleted its sandbox wrote its retry's files there, issue 34). The
    // attempt fails as such instead: exit 127, the reason on its stderr.
    if (!cwd->empty() && ::chdir(cwd->c_str()) != 0) {
      const char* why = ::strerrordesc_np(errno);
      constexpr char kPrefix[] = "killpoint: cannot enter the job's working folder ";
      (void)!::write(STDERR_FILENO, kPrefix, sizeof kPrefix - 1);
      (void)!::write(STDERR_FILENO, cwd->data(), cwd->size());
      (void)!::write(STDERR_FILENO, ": ", 2);
      if (why) (void)!::write(STDERR_FILENO, why, std::strlen(why));
      (void)!::write(STDERR_FILENO, "\n", 1);
      // The system call, not _exit: a sanitizer's _exit runs its own finalization, which under
      // TSan flushed the harness's stdio buffers into the job's stdout.
      ::syscall(SYS_exit_group, 127);
    }
    // Nothing else of the harness reaches the job: with parallel trials another thread may
    // have opened a descriptor without O_CLOEXEC (a library's) just before this fork. Marked
    // close-on-exec rather than closed, so that Boost's exec-error pipe still works. ENOSYS
    // (a kernel before 5.11) leaves the flags as the harness set them.
    ::syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC);
    if (max_file_bytes > 0) {
      rlimit fsize{static_cast<rlim_t>(max_file_bytes), static_cast<rlim_t>(max_file_bytes)};
      ::setrlimit(RLIMIT_FSIZE, &fsize);
    }
    rlimit no_core{0, 0};  // a job that aborts must not leave core files in the sandbox
    ::setrlimit(RLIMIT_CORE, &no_core);
    // The harness's handlers (SIGINT, SIGTERM: they write to the harness's memory, which this
    // child still shares) become the defaults before any signal is let in, as posix_spawn does.
    for (int sig = 1; sig < NSIG; ++sig) {
      struct sigaction sa {};
      if (::sigaction(sig, nullptr, &sa) == 0 && sa.sa_handler != SIG_DFL &&
          sa.sa_handler != SIG_IGN) {
        ::signal(sig, SIG_DFL);
      }
    }
    ::signal(SIGXFSZ, SIG_DFL);
    ::signal(SIGPIPE, SIG_DFL);
    ::pthread_sigmask(SIG_SETMASK, job_mask, nullptr);
  }
};

// vfork, not fork: the harness is a big process with several threads (workers, the committer,
// each trial's channel and downstream), and a fork copies its page tables and then takes a
// copy-on-write fault, with a TLB shootdown of every core, at the first write to each page by
// any thread; it was the harness's largest single cost per trial (docs/performance.md). With
// vfork the child borrows the harness's memory until its exec, so every signal stays blocked in
// the spawning thread from before the vfork until the child has reset the handlers (above).
class SignalsBlocked {
 public:
  SignalsBlocked() {
    sigset_t all;
    ::sigfillset(&all);
    ::pthread_sigmask(SIG_SETMASK, &all, &old_);
  }
  ~SignalsBlocked() { ::pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  SignalsBlocked(const SignalsBlocked&) = delete;
  SignalsBlocked& operator=(const SignalsBlocked&) = delete;
  const sigset_t* old() const { return &old_; }

 private:
  sigset_t old_;
};

// The job's environment as execve wants it: the harness's own without KILLPOINT_*, then
// `extra`, then the tag. Built by hand: Boost 1.74's environment::find (behind operator[])
// compares a key with std::equal past the end of shorter entries, a heap-buffer-overflow
// AddressSanitizer reported on every spawn.
class Environment {
 public:
  Environment(const std::map<std::string, std::string>& extra, const std::string& tag) {
    for (char** e = ::environ; *e; ++e) {
      std::string_view entry(*e);
      std::string_view name = entry.substr(0, entry.find('='));
      if (name.rfind("KILLPOINT_", 0) == 0 || extra.count(std::string(name))) continue;
      entries_.emplace_back(entry);
    }
    for (const auto& [k, v] : extra) entries_.push_back(k + "=" + v);
    entries_.push_back(std::string(kProcessTagVariable) + "=" + tag);
    for (auto& entry : entries_) pointers_.push_back(entry.data());
    pointers_.push_back(nullptr);
  }
  char** envp() { return pointers_.data(); }

 private:
  std::vector<std::string> entries_;
  std::vector<char*> pointers_;
};

// Jobs spawned and not yet destroyed, counted from before the vfork: while it is 1 at the end of
// an attempt, no other job runs or is being spawned, and every other child of the harness but
// its orphan guard is an orphan it adopted (KillAdoptedOrphans).
std::atomic<int> g_jobs{0};
// Held across a spawn (from before the count to after the exec) and across the orphan sweep:
// without it, a sweep that read a count of 1 could meet a job another worker spawned since,
// a child of the harness like an orphan, and kill it.
std::mutex g_spawn_mu;

class PosixProcess : public RunningProcess {
 public:
  PosixProcess(bp::child child, int pidfd, std::string tag, OutputCapture out, OutputCapture err,
               const SpawnRequest& r)
      : child_(std::move(child)),
        pidfd_(pidfd),
        tag_(std::move(tag)),
        out_(std::move(out)),
        err_(std::move(err)),
        max_file_bytes_(r.max_file_bytes),
        stop_(r.stop),
        watch_free_(r.watch_free),
        min_free_bytes_(r.min_free_bytes) {}

  ~PosixProcess() override {
    if (child_.valid() && !reaped_) {
      KillGroup();
      std::error_code ec;
      child_.wait(ec);
      KillTagged(tag_, child_.id());
    }
    if (pidfd_ >= 0) ::close(pidfd_);
    --g_jobs;
  }

  int pid() const override { return child_.id(); }
  const std::string& tag() const override { return tag_; }

  void KillGroup() override {
    if (reaped_.load()) return;
    // Before the child's setpgid has run, the group does not exist yet: kill the child itself.
    if (::killpg(child_.id(), SIGKILL) != 0 && errno == ESRCH) ::kill(child_.id(), SIGKILL);
  }

  void SignalGroup(int signal) override {
    if (reaped_.load()) return;
    ::killpg(child_.id(), signal);
  }

  bool WaitForExit(std::chrono::milliseconds timeout) override {
    return WaitExit(timeout) == Waited::kExited;
  }

  ExitStatus Wait(std::chrono::milliseconds timeout) override {
    AddForegroundGroup(child_.id());
    Waited waited = WaitExit(timeout);
    bool timed_out = waited == Waited::kTimedOut;
    bool full = waited == Waited::kFull;
    if (waited != Waited::kExited) KillGroup();
    // The leader is a zombie now (or about to be): kill what it left in its group, then reap.
    KillGroup();
    std::error_code ec;
    child_.wait(ec);
    reaped_ = true;
    RemoveForegroundGroup(child_.id());
    ExitStatus s;
    s.timed_out = timed_out;
    s.interrupted = waited == Waited::kInterrupted;
    s.sandbox_full = full;
    // Whatever left the group (setsid, double fork) still carries the tag; what also cleared
    // its environment was adopted by the harness, its subreaper, once its parent was gone. With
    // other jobs running, those orphans wait for the end of the run (cli/main.cc): which job an
    // untagged orphan came from is unknown.
    s.stray_killed = KillTagged(tag_, child_.id());
    {
      std::lock_guard lock(g_spawn_mu);
      if (g_jobs.load() == 1) s.stray_killed += KillAdoptedOrphans(child_.id());
    }
    int raw = child_.native_exit_code();
    if (WIFEXITED(raw)) {
      s.exited = true;
      s.code = WEXITSTATUS(raw);
    } else if (WIFSIGNALED(raw)) {
      s.signal = WTERMSIG(raw);
    }
    out_.Finish();
    err_.Finish(Note(s));
    return s;
  }

 private:
  // What the harness adds to the job's stderr so that its tail says why it ended.
  std::string Note(const ExitStatus& s) const {
    std::string note;
    if (s.signal == SIGXFSZ && !s.timed_out) {
      note = "killed by SIGXFSZ: a file reached the sandbox's size limit of " +
             std::to_string(max_file_bytes_) + " bytes (job.max_file_bytes)";
    }
    if (s.sandbox_full) {
      note = "killed: the file system of its sandbox (" + watch_free_.string() + ") fell below " +
             std::to_string(min_free_bytes_ >> 20) +
             " MiB free, the sandbox's total limit (RAM is the machine's; --real-disk puts the "
             "sandboxes on disk)";
    }
    if (s.stray_killed > 0) {
      note += std::string(note.empty() ? "" : "; ") + "killed " + std::to_string(s.stray_killed) +
              " process(es) it left running outside its process group";
    }
    return note;
  }

  enum class Waited { kExited, kTimedOut, kInterrupted, kFull };

  // Drains the output pipes until the pidfd says the leader exited, `timeout` passes or the
  // request's stop token stops (by default the harness's SIGINT/SIGTERM, interrupt.h).
  Waited WaitExit(std::chrono::milliseconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      if (stop_.stop_requested()) return Waited::kInterrupted;
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() < 0) return Waited::kTimedOut;
      if (Full()) return Waited::kFull;
      pollfd p[4] = {{pidfd_, POLLIN, 0},
                     {out_.read_end(), POLLIN, 0},
                     {err_.read_end(), POLLIN, 0},
                     {stop_.fd(), POLLIN, 0}};  // a negative fd is ignored by poll
      int wait_ms = static_cast<int>(
          watch_free_.empty() ? left.count()
                              : std::min<int64_t>(left.count(), kFreeSpaceCheck.count()));
      int rc = ::poll(p, 4, wait_ms);
      if (rc < 0 && errno == EINTR) continue;
      if (rc < 0) return Waited::kExited;  // let wait() report what happened
      if (p[1].revents) out_.Drain();
      if (p[2].revents) err_.Drain();
      if (p[0].revents) return Waited::kExited;
      if (p[3].revents) return Waited::kInterrupted;
    }
  }

  // Whether the watched file system has less than its minimum free (statvfs: one system call
  // every kFreeSpaceCheck, only when a folder is watched).
  bool Full() const {
    if (watch_free_.empty()) return false;
    struct statvfs fs;
    if (::statvfs(watch_free_.c_str(), &fs) != 0) return false;
    return static_cast<int64_t>(fs.f_bavail) * static_cast<int64_t>(fs.f_frsize) < min_free_bytes_;
  }

  bp::child child_;
  int pidfd_;
  std::string tag_;
  OutputCapture out_, err_;
  int64_t max_file_bytes_;
  StopToken stop_;
  std::filesystem::path watch_free_;
  int64_t min_free_bytes_;
  std::atomic<bool> reaped_{false};
};

}  // namespace

// Like execvp's search of PATH (bp::search_path reads PATH through the same environment::find).
std::string SearchPath(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string_view dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  while (true) {
    size_t colon = dirs.find(':');
    std::string dir(dirs.substr(0, colon));
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    if (colon == std::string_view::npos) return "";
    dirs.remove_prefix(colon + 1);
  }
}

std::string ExitStatus::Describe() const {
  if (timed_out) return "killed at its timeout";
  if (sandbox_full) return "killed: its sandbox filled the RAM file system";
  if (interrupted) return "killed: the harness was interrupted";
  if (exited) return "exited with code " + std::to_string(code);
  if (signal == SIGXFSZ) return "killed by SIGXFSZ (a file reached the sandbox's size limit)";
  return std::string("killed by signal ") + std::to_string(signal) + " (" + strsignal(signal) + ")";
}

Result<std::unique_ptr<RunningProcess>> Spawn(const SpawnRequest& r) {
  if (r.argv.empty() || r.argv[0].empty()) return Error::BadInput("empty job command");
  boost::filesystem::path exe = r.argv[0];
  if (r.argv[0].find('/') == std::string::npos) exe = SearchPath(r.argv[0]);
  if (exe.empty() || ::access(exe.c_str(), X_OK) != 0) {
    return Error::BadInput("job program '" + r.argv[0] + "' is missing or not executable");
  }
  auto out = OutputCapture::Open(r.stdout_path, r.max_output_bytes, "stdout");
  if (!out) return out.error();
  auto err = OutputCapture::Open(r.stderr_path, r.max_output_bytes, "stderr");
  if (!err) return err.error();
  std::vector<std::string> args(r.argv.begin() + 1, r.argv.end());
  std::string tag = NewProcessTag();
  Environment env(r.env, tag);
  std::error_code ec;
  std::unique_lock spawning(g_spawn_mu);
  std::optional<SignalsBlocked> blocked(std::in_place);
  ++g_jobs;  // from here until the PosixProcess is destroyed, or the spawn failed
  std::string cwd = r.cwd.string();
  bp::child child(exe, bp::args(args), bp::std_in < bp::null, bp::posix::use_vfork,
                  ChildSetup{{},
                             out.value().write_end(),
                             err.value().write_end(),
                             r.max_file_bytes,
                             env.envp(),
                             ::getpid(),
                             blocked->old(),
                             JobCgroupProcsFd(),
                             &cwd},
                  ec);
  blocked.reset();
  spawning.unlock();  // vfork: the child has exec'd (or failed to) by now
  out.value().CloseWriteEnd();
  err.value().CloseWriteEnd();
  if (ec) {
    --g_jobs;
    return Error::BadInput("cannot start job '" + r.argv[0] + "': " + ec.message());
  }
  int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, child.id(), 0));
  if (pidfd < 0) {
    ::killpg(child.id(), SIGKILL);
    child.wait(ec);
    KillTagged(tag);
    --g_jobs;
    return Error::Harness(std::string("pidfd_open failed: ") + std::strerror(errno));
  }
  return std::unique_ptr<RunningProcess>(new PosixProcess(
      std::move(child), pidfd, std::move(tag), std::move(out.value()), std::move(err.value()), r));
}

Spawner& PosixSpawner() {
  class Posix : public Spawner {
   public:
    Result<std::unique_ptr<RunningProcess>> Spawn(const SpawnRequest& r) override {
      return killpoint::Spawn(r);
    }
  };
  static Posix* const spawner = new Posix;  // never destroyed: a worker may spawn until exit
  return *spawner;
}

}  // namespace killpoint
