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
#include <sstream>

#include "supervisor/supervisor.h"

namespace killpoint::supervisor {

namespace {

std::optional<std::string> ReadLinkAt(int dir, const std::string& path) {
  char buf[PATH_MAX];
  ssize_t n = readlinkat(dir, path.c_str(), buf, sizeof buf);
  if (n <= 0 || static_cast<size_t>(n) >= sizeof buf) return std::nullopt;
  return std::string(buf, static_cast<size_t>(n));
}

// The whole of a /proc file under `dir` ("status", "maps").
std::optional<std::string> ReadAt(int dir, const char* name) {
  Fd fd(openat(dir, name, O_RDONLY | O_CLOEXEC));
  if (!fd.ok()) return std::nullopt;
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = read(fd.get(), buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

}  // namespace

Task* Target::Reopen() const {
  task_ = tasks_.Open(tid());
  checked_ = task_ != nullptr && Valid();  // opened while the caller lived: the caller's
  if (task_ != nullptr && !checked_) {
    tasks_.Drop(tid());
    task_ = nullptr;
  }
  return task_;
}

template <typename T, typename Op>
std::optional<T> Target::ThroughProc(Op op) const {
  if (task_ == nullptr && (task_ = tasks_.Find(tid())) == nullptr && Reopen() == nullptr)
    return std::nullopt;
  std::optional<T> r = op(task_->proc.get());
  if (!r && !checked_ && Reopen() != nullptr) r = op(task_->proc.get());
  if (r) checked_ = true;
  return r;
}

const Task* Target::Caller() const {
  if (!checked_) {
    ThroughProc<bool>([](int proc) -> std::optional<bool> {
      if (faccessat(proc, "fd", F_OK, 0) != 0) return std::nullopt;
      return true;
    });
  }
  return checked_ ? task_ : nullptr;
}

pid_t Target::Tgid() const {
  const Task* t = Caller();
  return t != nullptr ? t->tgid : tid();
}

std::optional<std::string> Target::FdPath(int fd) const {
  if (fd < 0) return std::nullopt;
  std::string link = "fd/" + std::to_string(fd);
  std::optional<std::string> path =
      ThroughProc<std::string>([&](int proc) { return ReadLinkAt(proc, link); });
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
  if (tmpfile || (fstatat(task_->proc.get(), link.c_str(), &st, 0) == 0 && st.st_nlink == 0))
    return stripped;
  return path;
}

std::optional<std::string> Target::Resolve(int dirfd, const std::string& path) const {
  if (path.empty()) return std::nullopt;
  if (path[0] == '/') return Normalize(path);
  std::optional<std::string> base =
      dirfd == AT_FDCWD ? ThroughProc<std::string>([](int proc) { return ReadLinkAt(proc, "cwd"); })
                        : FdPath(dirfd);
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
  const Task* t = Caller();
  if (t == nullptr || !t->pidfd->ok()) return Fd();
  return Fd(PidfdGetfd(t->pidfd->get(), fd));
}

Fd Target::Dir(int dirfd) const {
  if (dirfd != AT_FDCWD) return Dup(dirfd);
  std::optional<int> cwd = ThroughProc<int>([](int proc) -> std::optional<int> {
    int fd = openat(proc, "cwd", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    return fd;
  });
  return Fd(cwd.value_or(-1));
}

mode_t Target::Umask() const {
  std::optional<std::string> status =
      ThroughProc<std::string>([](int proc) { return ReadAt(proc, "status"); });
  size_t at = status ? status->find("\nUmask:") : std::string::npos;
  if (at == std::string::npos) return 022;
  return static_cast<mode_t>(std::strtoul(status->c_str() + at + 7, nullptr, 8));
}

bool Target::Valid() const {
  uint64_t id = req_.id;
  return ioctl(listener_, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

std::optional<std::string> Target::MappedFile(uint64_t addr) const {
  std::optional<std::string> text =
      ThroughProc<std::string>([](int proc) { return ReadAt(proc, "maps"); });
  std::istringstream maps(text.value_or(""));
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
