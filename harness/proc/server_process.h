// A server process (postgres, later redis-server, ...) as the harness runs it: in a process
// group of its own, as an unprivileged user when the harness is root (postgres refuses root;
// docs/decisions.md), with PR_SET_PDEATHSIG=SIGKILL set after the change of user (a change of
// credentials clears it), so that it dies with the thread that started it, and with the run's
// marks (the orphan guard's tag, process_tag.h; the run's cgroup, job_cgroup.h) for when the
// harness is SIGKILLed.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "util/result.h"

namespace killpoint {

struct ServerCommand {
  std::vector<std::string> argv;           // argv[0] an absolute path
  std::map<std::string, std::string> env;  // the whole environment, with the marks' tag
  std::filesystem::path log;               // stdout and stderr, appended
  int cgroup_procs_fd = -1;
};

// The user a server runs as: the harness's own, or `nobody` when the harness is root.
struct ServerUser {
  uid_t uid;
  gid_t gid;
};
ServerUser ServerUserFor();

// Gives `path` (a folder the harness made for a server) to the server's user.
Status GiveToServerUser(const std::filesystem::path& path);

class ServerProcess {
 public:
  ServerProcess(pid_t pid, std::filesystem::path log);  // IsServerProcess(pid) until reaped
  ~ServerProcess();                                     // Stop(SIGQUIT)
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  pid_t pid() const { return pid_; }
  // Whether it still runs (not yet exited); reaps it once it has.
  bool Running();
  // Sends `signal` to its group, waits up to `patience` for it to exit, then SIGKILLs the group
  // and reaps the leader. Idempotent.
  void Stop(int signal, std::chrono::milliseconds patience = std::chrono::seconds(10));
  // Server faults (docs/services.md, "Server faults") reach every process of the server, not only
  // its group: PostgreSQL's backends run in sessions of their own. SignalAll sends `signal`
  // (SIGSTOP, SIGCONT) to the server and all its descendants (by parent pid, from /proc), the
  // server first, so that it starts no new one meanwhile. KillAll SIGKILLs them all the same way
  // and waits until every one is gone (reaping the server and any it left to the harness).
  void SignalAll(int signal);
  void KillAll();
  // Its log's last `bytes`, after the lines that say why it died (server_log.h), for an error
  // message.
  std::string LogTail(size_t bytes = 1500) const;

 private:
  void Reaped();

  pid_t pid_;
  std::filesystem::path log_;
  bool reaped_ = false;
};

// Whether `pid` is a server process the harness started (a ServerProcess not yet reaped): the
// tag sweep after an attempt (proc/process_tag.h, KillAdoptedOrphans) leaves it alone even when
// its environment no longer shows its tag (redis-server's process title overwrites it) and it
// was started during the attempt (a server restarted by a server fault).
bool IsServerProcess(pid_t pid);

// Starts `command` (fork and exec) and returns at once.
Result<std::unique_ptr<ServerProcess>> StartServer(const ServerCommand& command);

// Runs `command` to its end (initdb): an error with its log's tail unless it exits 0.
Status RunServerTool(const ServerCommand& command, std::chrono::milliseconds patience);

// A TCP port on 127.0.0.1 that was free a moment ago (the kernel's pick).
Result<int> PickLoopbackPort();

}  // namespace killpoint
