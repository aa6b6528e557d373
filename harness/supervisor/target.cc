#include "supervisor/target.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "supervisor/supervisor.h"

namespace killpoint::supervisor {

int PidfdOpen(pid_t pid) { return static_cast<int>(syscall(SYS_pidfd_open, pid, 0)); }

Fd& Fd::operator=(Fd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) close(fd_);
    fd_ = o.release();
  }
  return *this;
}

Fd::~Fd() {
  if (fd_ >= 0) close(fd_);
}

pid_t Target::Tgid() const {
  if (tgid_ != 0) return tgid_;
  tgid_ = tid();
  std::ifstream status("/proc/" + std::to_string(tid()) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("Tgid:", 0) == 0) {
      tgid_ = static_cast<pid_t>(std::atoi(line.c_str() + 5));
      break;
    }
  }
  return tgid_;
}

namespace {

std::optional<std::string> ReadLink(const std::string& path) {
  char buf[PATH_MAX];
  ssize_t n = readlink(path.c_str(), buf, sizeof buf);
  if (n <= 0 || static_cast<size_t>(n) >= sizeof buf) return std::nullopt;
  return std::string(buf, static_cast<size_t>(n));
}

}  // namespace

std::optional<std::string> Target::FdPath(int fd) const {
  if (fd < 0) return std::nullopt;
  std::string link = "/proc/" + std::to_string(tid()) + "/fd/" + std::to_string(fd);
  std::optional<std::string> path = ReadLink(link);
  // A file unlinked since it was opened reads "PATH (deleted)": its point keeps the name it was
  // opened under, as the shim's does (a file really named so still has a link). An O_TMPFILE
  // reads "DIR/#INODE (deleted)" for good, even once linkat gave it a name.
  constexpr std::string_view kDeleted = " (deleted)";
  if (!path || !path->ends_with(kDeleted)) return path;
  std::string stripped = path->substr(0, path->size() - kDeleted.size());
  std::string base = stripped.substr(stripped.rfind('/') + 1);
  bool tmpfile = base.size() > 1 && base[0] == '#' &&
                 base.find_first_not_of("0123456789", 1) == std::string::npos;
  struct stat st {};
  if (tmpfile || (stat(link.c_str(), &st) == 0 && st.st_nlink == 0)) return stripped;
  return path;
}

std::optional<std::string> Target::Resolve(int dirfd, const std::string& path) const {
  if (path.empty()) return std::nullopt;
  if (path[0] == '/') return Normalize(path);
  std::optional<std::string> base =
      dirfd == AT_FDCWD ? ReadLink("/proc/" + std::to_string(tid()) + "/cwd") : FdPath(dirfd);
  if (!base || base->empty() || (*base)[0] != '/') return std::nullopt;
  return Normalize(*base + "/" + path);
}

bool Target::Read(uint64_t addr, void* out, size_t len) const {
  if (len == 0) return true;
  size_t done = 0;
  while (done < len) {
    iovec local{static_cast<char*>(out) + done, len - done};
    iovec remote{reinterpret_cast<void*>(addr + done), len - done};
    ssize_t n = process_vm_readv(tid(), &local, 1, &remote, 1, 0);
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

bool Target::Write(uint64_t addr, const void* in, size_t len) const {
  iovec local{const_cast<void*>(in), len};
  iovec remote{reinterpret_cast<void*>(addr), len};
  return process_vm_writev(tid(), &local, 1, &remote, 1, 0) == static_cast<ssize_t>(len);
}

std::optional<std::string> Target::ReadString(uint64_t addr) const {
  if (addr == 0) return std::nullopt;
  std::string out;
  // Page by page: a string that ends near the end of a mapping must not be read past it.
  while (out.size() < PATH_MAX) {
    uint64_t at = addr + out.size();
    size_t chunk = 4096 - (at % 4096);
    char buf[4096];
    iovec local{buf, chunk};
    iovec remote{reinterpret_cast<void*>(at), chunk};
    ssize_t n = process_vm_readv(tid(), &local, 1, &remote, 1, 0);
    if (n <= 0) return std::nullopt;
    const void* nul = memchr(buf, '\0', static_cast<size_t>(n));
    if (nul != nullptr) {
      out.append(buf, static_cast<const char*>(nul) - buf);
      return out;
    }
    out.append(buf, static_cast<size_t>(n));
  }
  return std::nullopt;
}

Fd Target::Dup(int fd) const {
  Fd pidfd(PidfdOpen(Tgid()));
  if (!pidfd.ok()) return Fd();
  return Fd(static_cast<int>(syscall(SYS_pidfd_getfd, pidfd.get(), fd, 0)));
}

Fd Target::Dir(int dirfd) const {
  if (dirfd != AT_FDCWD) return Dup(dirfd);
  std::string cwd = "/proc/" + std::to_string(tid()) + "/cwd";
  return Fd(open(cwd.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
}

mode_t Target::Umask() const {
  std::ifstream status("/proc/" + std::to_string(tid()) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("Umask:", 0) == 0)
      return static_cast<mode_t>(std::strtoul(line.c_str() + 6, nullptr, 8));
  }
  return 022;
}

bool Target::Valid() const {
  uint64_t id = req_.id;
  return ioctl(listener_, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

std::optional<std::string> Target::MappedFile(uint64_t addr) const {
  std::ifstream maps("/proc/" + std::to_string(tid()) + "/maps");
  for (std::string line; std::getline(maps, line);) {
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx", &lo, &hi) != 2 || addr < lo || addr >= hi) continue;
    size_t slash = line.find('/');
    if (slash == std::string::npos) return std::nullopt;
    std::string path = line.substr(slash);
    const std::string deleted = " (deleted)";
    if (path.size() > deleted.size() && path.ends_with(deleted)) return std::nullopt;
    return path;
  }
  return std::nullopt;
}

void Target::Respond(int64_t val, int err, uint32_t flags) const {
  seccomp_notif_resp resp{};
  resp.id = req_.id;
  resp.val = val;
  resp.error = err;
  resp.flags = flags;
  // ENOENT: the thread died (a kill) or the call was interrupted meanwhile; nothing to answer.
  while (ioctl(listener_, SECCOMP_IOCTL_NOTIF_SEND, &resp) != 0 && errno == EINTR) {
  }
}

void Target::Continue() const { Respond(0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE); }
void Target::Return(int64_t value) const { Respond(value, 0, 0); }
void Target::Fail(int err) const { Respond(0, -err, 0); }

void Target::ReturnFd(int fd, bool cloexec) const {
  seccomp_notif_addfd add{};
  add.id = req_.id;
  add.flags = SECCOMP_ADDFD_FLAG_SEND;
  add.srcfd = static_cast<uint32_t>(fd);
  add.newfd_flags = cloexec ? O_CLOEXEC : 0;
  for (;;) {
    if (ioctl(listener_, SECCOMP_IOCTL_NOTIF_ADDFD, &add) >= 0) return;
    if (errno == EINTR) continue;
    if (errno != ENOENT) Fail(errno);  // EMFILE, say: the job's open fails as the kernel's would
    return;
  }
}

}  // namespace killpoint::supervisor
