#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "proc/job_cgroup.h"

namespace killpoint {
namespace {

int g_procs_fd = -1;

// Where the cgroup2 hierarchy is mounted: /sys/fs/cgroup on a unified system,
// /sys/fs/cgroup/unified on a hybrid one. Empty if it is not mounted.
std::filesystem::path Cgroup2Mount() {
  std::ifstream mounts("/proc/self/mounts");
  std::string device, dir, type;
  std::string rest;
  while (mounts >> device >> dir >> type && std::getline(mounts, rest)) {
    if (type == "cgroup2") return dir;
  }
  return {};
}

// This process's cgroup in the v2 hierarchy: the "0::/path" line of /proc/self/cgroup.
std::string OwnCgroup() {
  std::ifstream cgroups("/proc/self/cgroup");
  for (std::string line; std::getline(cgroups, line);) {
    if (line.rfind("0::", 0) == 0) return line.substr(3);
  }
  return "/";
}

bool Empty(const std::filesystem::path& dir) {
  std::ifstream procs(dir / "cgroup.procs");
  std::string pid;
  return !(procs >> pid);
}

void KillEachProcess(const std::filesystem::path& dir) {
  std::ifstream procs(dir / "cgroup.procs");
  for (pid_t pid; procs >> pid;) ::kill(pid, SIGKILL);
}

// Creates `<cgroup2 mount>/<this process's cgroup>/<name>`.
Result<std::filesystem::path> MakeCgroup(const std::string& name) {
  std::filesystem::path mount = Cgroup2Mount();
  if (mount.empty()) return Error::Harness("no cgroup2 hierarchy is mounted");
  std::filesystem::path dir = mount / std::filesystem::path(OwnCgroup()).relative_path() / name;
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return Error::Harness("cannot create cgroup " + dir.string() + ": " + std::strerror(errno));
  }
  return dir;
}

}  // namespace

bool JobCgroupsAvailable() {
  auto probe = MakeCgroup("killpoint-probe-" + std::to_string(::getpid()));
  if (!probe) return false;
  bool writable = ::access((probe.value() / "cgroup.procs").c_str(), W_OK) == 0;
  ::rmdir(probe.value().c_str());
  return writable;
}

Result<std::filesystem::path> CreateJobCgroup() {
  auto made = MakeCgroup("killpoint-" + std::to_string(::getpid()));
  if (!made) return made.error();
  std::filesystem::path dir = made.value();
  int fd = ::open((dir / "cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    std::string why = std::strerror(errno);
    ::rmdir(dir.c_str());
    return Error::Harness("cannot open " + (dir / "cgroup.procs").string() + ": " + why);
  }
  g_procs_fd = fd;
  return dir;
}

int JobCgroupProcsFd() { return g_procs_fd; }

void KillAndRemoveCgroup(const std::filesystem::path& dir) {
  int kill = ::open((dir / "cgroup.kill").c_str(), O_WRONLY | O_CLOEXEC);
  if (kill >= 0) {
    [[maybe_unused]] ssize_t n = ::write(kill, "1", 1);
    ::close(kill);
  }
  // A job that was itself a killpoint run made a cgroup of its own inside: its processes are
  // killed with these (cgroup.kill reaches every descendant), its folder must go first.
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.is_directory(ec)) KillAndRemoveCgroup(entry.path());
  }
  // Killed processes leave the cgroup once they have exited; a fork racing the kill may add
  // one after it, which the next round catches.
  for (int round = 0; round < 200; ++round) {
    if (::rmdir(dir.c_str()) == 0 || errno == ENOENT) return;
    if (!Empty(dir)) KillEachProcess(dir);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace killpoint
