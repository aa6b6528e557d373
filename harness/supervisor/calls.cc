#include "supervisor/calls.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <iostream>

namespace killpoint::supervisor {
namespace {

constexpr uint32_t kWriteOpen = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC;
// A write larger than this is left to the kernel, unnamed: the supervisor copies what it writes.
constexpr size_t kMaxEmulated = size_t{1} << 30;

int Int(uint64_t arg) { return static_cast<int>(static_cast<int32_t>(arg)); }

std::string Slash(const std::string& dir, const std::string& base) {
  return dir == "/" ? "/" + base : dir + "/" + base;
}

// The path with its folder's symlinks resolved (and the file's own, when `follow` and it
// exists): where the call really lands.
std::string RealOf(const std::string& abs, bool follow) {
  char buf[PATH_MAX];
  if (follow && realpath(abs.c_str(), buf) != nullptr) return buf;
  size_t slash = abs.rfind('/');
  std::string dir = slash == 0 ? "/" : abs.substr(0, slash), base = abs.substr(slash + 1);
  if (realpath(dir.c_str(), buf) != nullptr) return Slash(buf, base);
  return abs;
}

// /dev (but /dev/shm), /proc and /sys are never reported (the shim's kp_outside_ignored).
bool OutsideIgnored(const std::string& abs) {
  auto under = [&](const char* root) {
    size_t n = strlen(root);
    return abs.compare(0, n, root) == 0 && (abs.size() == n || abs[n] == '/');
  };
  if (abs.empty() || abs[0] != '/') return true;
  if (under("/dev/shm")) return false;
  return under("/dev") || under("/proc") || under("/sys");
}

// A path argument of a call: where it lands, and its crash point form when in the sandbox.
struct PathArg {
  int dirfd = AT_FDCWD;
  std::string raw;   // as the job gave it
  std::string real;  // absolute, symlinks of its folder resolved
  std::optional<std::string> rel;
};

std::optional<PathArg> ReadPath(const Config& config, const Target& call, int dirfd, uint64_t addr,
                                bool follow) {
  std::optional<std::string> raw = call.ReadString(addr);
  if (!raw) return std::nullopt;
  std::optional<std::string> abs = call.Resolve(dirfd, *raw);
  if (!abs) return std::nullopt;
  PathArg p{dirfd, *raw, RealOf(*abs, follow), std::nullopt};
  p.rel = Relpath(config, p.real);
  return p;
}

void ReportOutside(Channel& channel, const Target& call, const char* op, const PathArg& p) {
  if (!p.rel && !OutsideIgnored(p.real)) channel.Outside(op, call.Tgid(), p.real);
}

// The job's path argument as the supervisor can pass it on: relative to a descriptor of the
// job's own cwd or dirfd.
struct LocalPath {
  Fd dir;
  std::string path;
  int at() const { return dir.ok() ? dir.get() : AT_FDCWD; }
};
LocalPath Local(const Target& call, const PathArg& p) {
  if (!p.raw.empty() && p.raw[0] == '/') return {Fd(), p.raw};
  return {call.Dir(p.dirfd), p.raw};
}

// An O_TMPFILE's descriptor: its /proc link reads "DIR/#INODE (deleted)" (FdPath drops the
// suffix), before and after linkat names the file. The descriptor never has a name of its own.
bool Unnamed(const std::string& path) {
  std::string base = path.substr(path.rfind('/') + 1);
  return base.size() > 1 && base[0] == '#' &&
         base.find_first_not_of("0123456789", 1) == std::string::npos;
}

// The sandbox-relative name of the job's descriptor, or nothing: outside the sandbox, not a
// file (a pipe, a socket), or a file with no name yet (O_TMPFILE: its data counts once linkat
// names it).
std::optional<std::string> SandboxPath(const Config& config,
                                       const std::optional<std::string>& path) {
  if (!path || path->empty() || (*path)[0] != '/') return std::nullopt;
  std::optional<std::string> rel = Relpath(config, *path);
  if (rel && Unnamed(*path)) return std::nullopt;
  return rel;
}
std::optional<std::string> SandboxFd(const Config& config, const Target& call, int fd) {
  return SandboxPath(config, call.FdPath(fd));
}

// A sandbox O_TMPFILE the job syncs (`path`: its descriptor's): done, no point, and remembered
// for its linkat.
bool SyncUnnamed(const Config& config, Memory& memory, const Target& call, int fd,
                 const std::optional<std::string>& path) {
  if (!path || !Relpath(config, *path) || !Unnamed(*path)) return false;
  Fd dup = call.Dup(fd);
  struct stat st {};
  if (!dup.ok() || fstat(dup.get(), &st) != 0) return false;
  int rc = config.skip_sync             ? 0
           : call.nr() == SYS_fdatasync ? fdatasync(dup.get())
                                        : fsync(dup.get());
  int err = errno;
  if (rc == 0) memory.synced_unnamed[{st.st_dev, st.st_ino}] = {st.st_size, st.st_mtim};
  rc == 0 ? call.Return(0) : call.Fail(err);
  return true;
}

// Asks the harness about `p`, runs `op` (which returns the call's result, or -1 with errno),
// reports DONE when the harness asked to hear it, and answers the job.
template <typename Op>
void AskDoAnswer(Channel& channel, const Target& call, const Point& p, Op op) {
  Reply r = channel.Hit(p);
  errno = 0;
  int64_t result = op(r);
  int err = errno;
  if (r.answer != Answer::kContinue)
    channel.Done(p, result < 0 ? 0 : static_cast<uint64_t>(result));
  if (result < 0) return call.Fail(err);
  call.Return(result);
}

// Records the sync of the job's file, `fd` (the supervisor's duplicate) whose fstat is `st`, in
// the durability journal when there is one. False when the journal's data file would pass the
// job's file size limit: the calling thread is sent SIGXFSZ, as the shim's process dies of it.
bool Record(Journal& journal, const Target& call, int fd, const struct stat& st) {
  if (!journal.on() || journal.Sync(fd, st) == Journal::Result::kRecorded) return true;
  syscall(SYS_tgkill, call.Tgid(), call.tid(), SIGXFSZ);
  return false;
}

// ---- writes ----

struct WriteArgs {
  std::string data;
  int64_t offset = -1;  // -1: at the file position
  int rwf = 0;          // pwritev2's flags
};

bool ReadIovecs(const Target& call, uint64_t iov_addr, uint64_t count, std::string& out) {
  if (count > IOV_MAX) return false;
  std::vector<iovec> iov(count);
  if (!call.Read(iov_addr, iov.data(), count * sizeof(iovec))) return false;
  size_t total = 0;
  for (const iovec& v : iov) total += v.iov_len;
  if (total > kMaxEmulated) return false;
  out.resize(total);
  size_t at = 0;
  for (const iovec& v : iov) {
    if (!call.Read(reinterpret_cast<uint64_t>(v.iov_base), out.data() + at, v.iov_len))
      return false;
    at += v.iov_len;
  }
  return true;
}

bool ReadWrite(const Target& call, WriteArgs& w) {
  switch (call.nr()) {
    case SYS_write:
    case SYS_pwrite64:
      if (call.arg(2) > kMaxEmulated) return false;
      w.data.resize(call.arg(2));
      if (call.nr() == SYS_pwrite64) w.offset = static_cast<int64_t>(call.arg(3));
      return call.Read(call.arg(1), w.data.data(), w.data.size());
    case SYS_pwritev2:
      w.rwf = Int(call.arg(5));
      [[fallthrough]];
    case SYS_pwritev:
      w.offset = static_cast<int64_t>(call.arg(3));
      [[fallthrough]];
    case SYS_writev:
      return ReadIovecs(call, call.arg(1), call.arg(2), w.data);
  }
  return false;
}

// The lowest offset a write of `done` bytes through `fd` wrote at: the file's end for an append
// (O_APPEND, RWF_APPEND), the offset of a positional write, else the file position before it.
int64_t WrittenAt(int fd, int fd_flags, const WriteArgs& w, const struct stat& after,
                  ssize_t done) {
  if ((fd_flags & O_APPEND) != 0 || (w.rwf & RWF_APPEND) != 0) return after.st_size - done;
  if (w.offset >= 0) return w.offset;
  off_t pos = lseek(fd, 0, SEEK_CUR);
  return pos < 0 ? -1 : pos - done;
}

// After a write through an O_SYNC/O_DSYNC descriptor or with RWF_SYNC/RWF_DSYNC, the data is
// durable when the call returns: the harness hears the sync that the call made, as a point of
// its own, while the job is still held in it; under the durability journal the file is recorded
// instead, and the point need not wait.
void SyncedWrite(Channel& channel, Journal& journal, const Target& call, const std::string& rel,
                 int fd, int fd_flags, int rwf) {
  bool full = (fd_flags & O_SYNC) == O_SYNC || (rwf & RWF_SYNC) != 0;
  bool data = (fd_flags & O_DSYNC) != 0 || (rwf & (RWF_DSYNC | RWF_SYNC)) != 0;
  if (!data) return;
  Point p{PointName(full ? "fsync" : "fdatasync", rel), call.Tgid()};
  p.wait = !journal.on();
  Reply r = channel.Hit(p);
  struct stat st {};
  if (journal.on() && fstat(fd, &st) == 0) Record(journal, call, fd, st);
  if (r.answer != Answer::kContinue) channel.Done(p, 0);
}

// v1.7: where a write through `fd` (the supervisor's duplicate: same open file, same position)
// lands: the end for an append (O_APPEND, which Linux applies to pwrite too, or RWF_APPEND),
// else the call's offset, else the descriptor's position. -1 when unknown.
int64_t WriteOffset(int fd, int fd_flags, int64_t offset, int rwf) {
  struct stat st {};
  if ((fd_flags >= 0 && (fd_flags & O_APPEND) != 0) || (rwf & RWF_APPEND) != 0)
    return fstat(fd, &st) == 0 ? st.st_size : -1;
  if (offset >= 0) return offset;
  return lseek(fd, 0, SEEK_CUR);
}

void HandleWrite(const Config& config, Channel& channel, Journal& journal, const Target& call) {
  std::optional<std::string> rel = SandboxFd(config, call, Int(call.arg(0)));
  if (!rel) return call.Continue();
  Fd fd = call.Dup(Int(call.arg(0)));
  struct stat st {};
  WriteArgs w;
  if (!fd.ok() || fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || !ReadWrite(call, w))
    return call.Continue();
  if (!call.Valid()) return;
  int fd_flags = fcntl(fd.get(), F_GETFL);
  Point p{PointName("write", *rel), call.Tgid(), true, w.data.size()};
  if (channel.Waits(p)) p.offset = WriteOffset(fd.get(), fd_flags, w.offset, w.rwf);
  Reply r = channel.Hit(p);
  size_t n =
      r.answer == Answer::kPartial ? std::min<uint64_t>(r.partial, w.data.size()) : w.data.size();
  iovec one{w.data.data(), n};
  ssize_t done = w.offset < 0 && w.rwf == 0 ? write(fd.get(), w.data.data(), n)
                                            : pwritev2(fd.get(), &one, 1, w.offset, w.rwf);
  int err = errno;
  if (r.answer != Answer::kContinue) channel.Done(p, done < 0 ? 0 : static_cast<uint64_t>(done));
  if (done < 0) {
    if (err == EFBIG) syscall(SYS_tgkill, call.Tgid(), call.tid(), SIGXFSZ);  // as the kernel does
    return call.Fail(err);
  }
  struct stat after {};
  if (done > 0 && journal.on() && fstat(fd.get(), &after) == 0)
    journal.Wrote(st, after, WrittenAt(fd.get(), fd_flags, w, after, done));
  if (done > 0) SyncedWrite(channel, journal, call, *rel, fd.get(), fd_flags, w.rwf);
  call.Return(done);
}

// sendfile and copy_file_range into a sandbox file: a write of up to `len` bytes.
void HandleCopy(const Config& config, Channel& channel, Journal& journal, const Target& call) {
  bool send = call.nr() == SYS_sendfile;
  int out = Int(call.arg(send ? 0 : 2)), in = Int(call.arg(send ? 1 : 0));
  std::optional<std::string> rel = SandboxFd(config, call, out);
  if (!rel) return call.Continue();
  if (journal.on()) {  // the kernel may make the copy: the next record of the file is whole
    Fd dup = call.Dup(out);
    struct stat st {};
    if (dup.ok() && fstat(dup.get(), &st) == 0) journal.Changed(st);
  }
  uint64_t len = call.arg(send ? 3 : 4);
  Point p{PointName("write", *rel), call.Tgid(), true, len};
  loff_t out_at = -1;  // copy_file_range's output offset, when it names one
  if (channel.Waits(p)) {
    Fd dup = call.Dup(out);
    if (!send && call.arg(3) != 0 && !call.Read(call.arg(3), &out_at, sizeof out_at)) out_at = -1;
    if (dup.ok()) p.offset = WriteOffset(dup.get(), fcntl(dup.get(), F_GETFL), out_at, 0);
  }
  Reply r = channel.Hit(p);
  if (r.answer == Answer::kContinue) return call.Continue();
  // Done by the supervisor, so that DONE follows it: offsets read from and written back to the job.
  Fd fd_in = call.Dup(in), fd_out = call.Dup(out);
  uint64_t n = r.answer == Answer::kPartial ? std::min(r.partial, len) : len;
  auto offset = [&](uint64_t addr, loff_t& v) {
    return addr == 0 || call.Read(addr, &v, sizeof v);
  };
  loff_t off_a = 0, off_b = 0;
  uint64_t addr_a = call.arg(send ? 2 : 1), addr_b = send ? 0 : call.arg(3);
  ssize_t done = -1;
  errno = EFAULT;
  if (fd_in.ok() && fd_out.ok() && offset(addr_a, off_a) && offset(addr_b, off_b)) {
    done = send ? sendfile(fd_out.get(), fd_in.get(), addr_a ? &off_a : nullptr, n)
                : copy_file_range(fd_in.get(), addr_a ? &off_a : nullptr, fd_out.get(),
                                  addr_b ? &off_b : nullptr, n, 0);
  }
  int err = errno;
  if (done >= 0) {
    if (addr_a != 0) call.Write(addr_a, &off_a, sizeof off_a);
    if (addr_b != 0) call.Write(addr_b, &off_b, sizeof off_b);
  }
  channel.Done(p, done < 0 ? 0 : static_cast<uint64_t>(done));
  if (done < 0) return call.Fail(err);
  call.Return(done);
}

// ---- descriptors: fsync, fdatasync, ftruncate, close, msync ----

void HandleSync(const Config& config, Channel& channel, Memory& memory, const Target& call) {
  int fd = Int(call.arg(0));
  std::optional<std::string> path = call.FdPath(fd);  // read once: a call costs every one
  if (SyncUnnamed(config, memory, call, fd, path)) return;
  std::optional<std::string> rel = SandboxPath(config, path);
  if (!rel) return call.Continue();
  bool data = call.nr() == SYS_fdatasync;
  Point p{PointName(data ? "fdatasync" : "fsync", *rel), call.Tgid()};
  // Under the durability journal a file's sync is recorded and need not wait; a directory's waits
  // (the tracker lists it while the job is held), as the shim's does.
  Fd dup;
  struct stat st {};
  if (memory.journal.on()) {
    dup = call.Dup(fd);
    if (dup.ok() && fstat(dup.get(), &st) == 0 && S_ISDIR(st.st_mode)) p.wait = true;
  }
  AskDoAnswer(channel, call, p, [&](const Reply&) -> int64_t {
    if (dup.ok() && !Record(memory.journal, call, dup.get(), st)) {
      errno = EFBIG;
      return -1;
    }
    if (config.skip_sync) return 0;
    if (!dup.ok()) dup = call.Dup(fd);
    if (!dup.ok()) return -1;
    return data ? fdatasync(dup.get()) : fsync(dup.get());
  });
}

void HandleFtruncate(const Config& config, Channel& channel, Journal& journal, const Target& call) {
  int fd = Int(call.arg(0));
  std::optional<std::string> rel = SandboxFd(config, call, fd);
  if (!rel) return call.Continue();
  Point p{PointName("truncate", *rel), call.Tgid()};
  AskDoAnswer(channel, call, p, [&](const Reply&) -> int64_t {
    Fd dup = call.Dup(fd);
    if (!dup.ok()) return -1;
    int rc = ftruncate(dup.get(), static_cast<off_t>(call.arg(1)));
    int err = errno;
    struct stat st {};
    if (journal.on() && fstat(dup.get(), &st) == 0) journal.Changed(st);
    errno = err;
    return rc;
  });
}

// The close itself changes nothing a crash keeps: a kill after it is the kill at it, which
// closes every descriptor anyway. So the kernel runs it, and DONE is reported before it.
void HandleClose(const Config& config, Channel& channel, const Target& call) {
  std::optional<std::string> rel = SandboxFd(config, call, Int(call.arg(0)));
  if (!rel) return call.Continue();
  Point p{PointName("close", *rel), call.Tgid()};
  if (channel.Hit(p).answer != Answer::kContinue) channel.Done(p, 0);
  call.Continue();
}

// msync(MS_SYNC) makes the stores through a shared mapping durable, like an fdatasync of the
// mapped file; the kernel does it once the harness has read the file (the stores are in it), or,
// under the durability journal, once the file is recorded whole (its stores are no writes the
// journal followed).
void HandleMsync(const Config& config, Channel& channel, Journal& journal, const Target& call) {
  std::optional<std::string> file = call.MappedFile(call.arg(0));
  std::optional<std::string> rel = file ? Relpath(config, *file) : std::nullopt;
  if (!rel) return call.Continue();
  Point p{PointName("fdatasync", *rel), call.Tgid()};
  p.wait = !journal.on();
  Reply r = channel.Hit(p);
  if (journal.on()) {
    Fd mapped(open(file->c_str(), O_RDONLY | O_CLOEXEC));
    struct stat st {};
    if (!mapped.ok() || fstat(mapped.get(), &st) != 0)
      Fatal("cannot read " + *file + " for the durability journal: " + strerror(errno));
    journal.Changed(st);
    Record(journal, call, mapped.get(), st);
  }
  if (r.answer != Answer::kContinue) channel.Done(p, 0);
  call.Continue();
}

// sync, and syncfs of the sandbox's file system: every file and folder of the sandbox durable,
// one point "sync:.". A syncfs of another file system is none of the sandbox's business.
void HandleSyncAll(const Config& config, Channel& channel, const Target& call) {
  Fd fd;
  if (call.nr() == SYS_syncfs) {
    fd = call.Dup(Int(call.arg(0)));
    struct stat target {
    }, sandbox{};
    if (!fd.ok() || fstat(fd.get(), &target) != 0 || stat(config.workdir.c_str(), &sandbox) != 0 ||
        target.st_dev != sandbox.st_dev)
      return call.Continue();
  }
  Point p{PointName("sync", "."), call.Tgid()};
  p.wait = true;  // the tracker reads the whole sandbox while the job is held here
  AskDoAnswer(channel, call, p, [&](const Reply&) -> int64_t {
    if (config.skip_sync) return 0;
    if (fd.ok()) return syncfs(fd.get());
    sync();
    return 0;
  });
}

// ---- names: open, truncate, rename, unlink, mkdir, link, symlink ----

struct OpenArgs {
  int dirfd = AT_FDCWD;
  uint64_t path = 0;
  open_how how{};
  bool is_openat2 = false;
};

bool ReadOpen(const Target& call, OpenArgs& o) {
  switch (call.nr()) {
    case SYS_open:
      o = {AT_FDCWD, call.arg(0), {call.arg(1), call.arg(2), 0}, false};
      return true;
    case SYS_creat:
      o = {AT_FDCWD, call.arg(0), {O_CREAT | O_WRONLY | O_TRUNC, call.arg(1), 0}, false};
      return true;
    case SYS_openat:
      o = {Int(call.arg(0)), call.arg(1), {call.arg(2), call.arg(3), 0}, false};
      return true;
    case SYS_openat2:
      o = {Int(call.arg(0)), call.arg(1), {}, true};
      return call.arg(3) >= sizeof(open_how) && call.Read(call.arg(2), &o.how, sizeof o.how);
  }
  return false;
}

void HandleOpen(const Config& config, Channel& channel, const Target& call) {
  OpenArgs o;
  if (!ReadOpen(call, o)) return call.Continue();
  int flags = static_cast<int>(o.how.flags);
  // An O_TMPFILE has no name: its data counts once linkat gives it one.
  if ((flags & O_TMPFILE) == O_TMPFILE || (flags & kWriteOpen) == 0) return call.Continue();
  std::optional<PathArg> p = ReadPath(config, call, o.dirfd, o.path, (flags & O_NOFOLLOW) == 0);
  if (!p || !call.Valid()) return call.Continue();
  if (!p->rel) {
    ReportOutside(channel, call, "open", *p);
    return call.Continue();
  }
  if ((flags & (O_CREAT | O_TRUNC)) == 0) return call.Continue();
  Point point{PointName("open", *p->rel), call.Tgid()};
  struct stat st {};
  point.excl =
      (flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL) && lstat(p->real.c_str(), &st) != 0;
  Reply r = channel.Hit(point);
  if (r.answer == Answer::kContinue) return call.Continue();
  // AFTER: opened here, with the job's umask, and handed to the job as the call's result.
  LocalPath local = Local(call, *p);
  open_how how = o.how;
  how.flags &= ~static_cast<uint64_t>(O_CLOEXEC);
  mode_t old = umask(call.Umask());
  int fd = static_cast<int>(syscall(SYS_openat2, local.at(), local.path.c_str(), &how, sizeof how));
  int err = errno;
  umask(old);
  channel.Done(point, 0);
  if (fd < 0) return call.Fail(err);
  call.ReturnFd(fd, (flags & O_CLOEXEC) != 0);
  close(fd);
}

// truncate(path), unlink, unlinkat, rmdir, mkdir, mkdirat: one path, done by the supervisor.
void HandlePathOp(const Config& config, Channel& channel, Journal& journal, const Target& call) {
  int nr = call.nr();
  bool at = nr == SYS_unlinkat || nr == SYS_mkdirat;
  int dirfd = at ? Int(call.arg(0)) : AT_FDCWD;
  int follow = nr == SYS_truncate;
  std::optional<PathArg> p = ReadPath(config, call, dirfd, call.arg(at ? 1 : 0), follow);
  if (!p || !call.Valid()) return call.Continue();
  bool rmdir = nr == SYS_rmdir || (nr == SYS_unlinkat && (Int(call.arg(2)) & AT_REMOVEDIR));
  const char* op = nr == SYS_truncate                     ? "truncate"
                   : nr == SYS_mkdir || nr == SYS_mkdirat ? "mkdir"
                                                          : "unlink";
  if (!p->rel) {
    ReportOutside(channel, call, rmdir ? "rmdir" : op, *p);
    return call.Continue();
  }
  Point point{PointName(op, *p->rel), call.Tgid()};
  AskDoAnswer(channel, call, point, [&](const Reply&) -> int64_t {
    LocalPath local = Local(call, *p);
    switch (nr) {
      case SYS_truncate: {
        std::string path = local.dir.ok()
                               ? "/proc/self/fd/" + std::to_string(local.at()) + "/" + local.path
                               : local.path;
        int rc = truncate(path.c_str(), static_cast<off_t>(call.arg(1)));
        int err = errno;
        struct stat st {};
        if (journal.on() && stat(path.c_str(), &st) == 0) journal.Changed(st);
        errno = err;
        return rc;
      }
      case SYS_mkdir:
      case SYS_mkdirat: {  // under the job's umask, not the supervisor's
        mode_t old = umask(call.Umask());
        int rc = mkdirat(local.at(), local.path.c_str(), static_cast<mode_t>(call.arg(at ? 2 : 1)));
        int err = errno;
        umask(old);
        errno = err;
        return rc;
      }
      default: {
        struct stat gone {};
        bool known = journal.on() &&
                     fstatat(local.at(), local.path.c_str(), &gone, AT_SYMLINK_NOFOLLOW) == 0;
        int rc = unlinkat(local.at(), local.path.c_str(), rmdir ? AT_REMOVEDIR : 0);
        if (rc == 0 && known) journal.Forget(gone);
        return rc;
      }
    }
  });
}

void HandleRename(const Config& config, Channel& channel, Journal& journal, const Target& call) {
  int nr = call.nr();
  bool at = nr != SYS_rename;
  int from_dir = at ? Int(call.arg(0)) : AT_FDCWD, to_dir = at ? Int(call.arg(2)) : AT_FDCWD;
  std::optional<PathArg> from = ReadPath(config, call, from_dir, call.arg(at ? 1 : 0), false);
  std::optional<PathArg> to = ReadPath(config, call, to_dir, call.arg(at ? 3 : 1), false);
  unsigned flags = nr == SYS_renameat2 ? static_cast<unsigned>(call.arg(4)) : 0;
  if (!from || !to || !call.Valid()) return call.Continue();
  ReportOutside(channel, call, "rename", *from);
  ReportOutside(channel, call, "rename", *to);
  if (!from->rel && !to->rel) return call.Continue();
  Point point{
      PointName("rename", from->rel ? *from->rel : from->real, to->rel ? *to->rel : to->real),
      call.Tgid()};
  AskDoAnswer(channel, call, point, [&](const Reply&) -> int64_t {
    LocalPath a = Local(call, *from), b = Local(call, *to);
    struct stat replaced {};
    bool known =
        journal.on() && fstatat(b.at(), b.path.c_str(), &replaced, AT_SYMLINK_NOFOLLOW) == 0;
    long rc = syscall(SYS_renameat2, a.at(), a.path.c_str(), b.at(), b.path.c_str(), flags);
    if (rc == 0 && known) journal.Forget(replaced);
    return rc;
  });
}

// The job's descriptor that linkat names: AT_EMPTY_PATH, or "/proc/self/fd/N" followed; -1 for
// a hard link of a named file.
int LinkedFd(const Target& call, const std::string& from, int flags) {
  if ((flags & AT_EMPTY_PATH) != 0 && from.empty()) return Int(call.arg(0));
  for (const std::string& prefix :
       {std::string("/proc/self/fd/"), "/proc/" + std::to_string(call.Tgid()) + "/fd/"}) {
    if ((flags & AT_SYMLINK_FOLLOW) != 0 && from.starts_with(prefix) &&
        from.size() > prefix.size() &&
        from.find_first_not_of("0123456789", prefix.size()) == std::string::npos)
      return std::atoi(from.c_str() + prefix.size());
  }
  return -1;
}

// linkat giving an unnamed file (O_TMPFILE) or an open one a name in the sandbox: the name
// appears like a create ("open:NEW"), done here through the supervisor's duplicate of the job's
// descriptor; an O_TMPFILE synced before and unchanged since has durable content under it, which
// the harness hears as "fsync:NEW" (docs/supervisor.md).
void HandleLinkat(const Config& config, Channel& channel, Memory& memory, const Target& call) {
  std::optional<std::string> from = call.ReadString(call.arg(1));
  std::optional<PathArg> to = ReadPath(config, call, Int(call.arg(2)), call.arg(3), false);
  int flags = Int(call.arg(4));
  int fd = from ? LinkedFd(call, *from, flags) : -1;
  if (!to || !call.Valid()) return call.Continue();
  ReportOutside(channel, call, "link", *to);
  if (!to->rel || fd < 0) return call.Continue();
  Fd dup = call.Dup(fd);
  if (!dup.ok()) return call.Continue();
  Point p{PointName("open", *to->rel), call.Tgid()};
  Reply r = channel.Hit(p);
  LocalPath local = Local(call, *to);
  std::string self = "/proc/self/fd/" + std::to_string(dup.get());
  int rc = linkat(AT_FDCWD, self.c_str(), local.at(), local.path.c_str(), AT_SYMLINK_FOLLOW);
  int err = errno;
  if (r.answer != Answer::kContinue) channel.Done(p, 0);
  if (rc != 0) return call.Fail(err);
  struct stat st {};
  auto synced = memory.synced_unnamed.end();
  if (fstat(dup.get(), &st) == 0) synced = memory.synced_unnamed.find({st.st_dev, st.st_ino});
  if (synced != memory.synced_unnamed.end()) {
    bool unchanged = synced->second.size == st.st_size &&
                     synced->second.mtime.tv_sec == st.st_mtim.tv_sec &&
                     synced->second.mtime.tv_nsec == st.st_mtim.tv_nsec;
    memory.synced_unnamed.erase(synced);
    if (unchanged) {  // under the durability journal the file is recorded instead of read
      Point sync{PointName("fsync", *to->rel), call.Tgid()};
      sync.wait = !memory.journal.on();
      Reply answer = channel.Hit(sync);
      if (memory.journal.on()) Record(memory.journal, call, dup.get(), st);
      if (answer.answer != Answer::kContinue) channel.Done(sync, 0);
    }
  }
  call.Return(0);
}

// link, symlink, symlinkat, and a linkat of a named file: a new name outside the sandbox is
// reported, never a point.
void HandleLink(const Config& config, Channel& channel, const Target& call) {
  int nr = call.nr();
  std::optional<PathArg> p = nr == SYS_link ? ReadPath(config, call, AT_FDCWD, call.arg(1), false)
                             : nr == SYS_symlink
                                 ? ReadPath(config, call, AT_FDCWD, call.arg(1), false)
                                 : ReadPath(config, call, Int(call.arg(1)), call.arg(2), false);
  if (p && call.Valid()) ReportOutside(channel, call, nr == SYS_link ? "link" : "symlink", *p);
  call.Continue();
}

// io_uring's operations run in the kernel's own threads, past the filter: a ring is refused
// (ENOSYS, so that a program with a fallback uses plain calls), and the harness hears of it.
void HandleIoUring(Channel& channel, const Target& call) {
  std::cerr << "killpoint supervisor: io_uring_setup refused (pid " << call.Tgid()
            << "): its operations would run unseen\n";
  channel.Refused("io_uring_setup", call.Tgid());
  call.Fail(ENOSYS);
}

}  // namespace

void HandleCall(const Config& config, Channel& channel, Memory& memory, const Target& call) {
  switch (call.nr()) {
    case SYS_write:
    case SYS_pwrite64:
    case SYS_writev:
    case SYS_pwritev:
    case SYS_pwritev2:
      return HandleWrite(config, channel, memory.journal, call);
    case SYS_sendfile:
    case SYS_copy_file_range:
      return HandleCopy(config, channel, memory.journal, call);
    case SYS_fsync:
    case SYS_fdatasync:
      return HandleSync(config, channel, memory, call);
    case SYS_ftruncate:
      return HandleFtruncate(config, channel, memory.journal, call);
    case SYS_close:
      return HandleClose(config, channel, call);
    case SYS_msync:
      return HandleMsync(config, channel, memory.journal, call);
    case SYS_open:
    case SYS_openat:
    case SYS_creat:
    case SYS_openat2:
      return HandleOpen(config, channel, call);
    case SYS_truncate:
    case SYS_unlink:
    case SYS_unlinkat:
    case SYS_rmdir:
    case SYS_mkdir:
    case SYS_mkdirat:
      return HandlePathOp(config, channel, memory.journal, call);
    case SYS_rename:
    case SYS_renameat:
    case SYS_renameat2:
      return HandleRename(config, channel, memory.journal, call);
    case SYS_linkat:
      return HandleLinkat(config, channel, memory, call);
    case SYS_link:
    case SYS_symlink:
    case SYS_symlinkat:
      return HandleLink(config, channel, call);
    case SYS_sync:
    case SYS_syncfs:
      return HandleSyncAll(config, channel, call);
    case SYS_io_uring_setup:
      return HandleIoUring(channel, call);
    default:
      return call.Continue();
  }
}

}  // namespace killpoint::supervisor
