#include "supervisor/journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "supervisor/supervisor.h"

namespace killpoint::supervisor {
namespace {

// Files whose last record is remembered; past it, every file's next record is whole.
constexpr size_t kMaxFiles = 4096;

bool SameStamp(off_t size, const timespec& mtime, const struct stat& st) {
  return size == st.st_size && mtime.tv_sec == st.st_mtim.tv_sec &&
         mtime.tv_nsec == st.st_mtim.tv_nsec;
}

}  // namespace

void Journal::Open() {
  if (journal_.ok()) return;
  pid_ = getpid();
  std::string journal = dir_ + "/journal", data = dir_ + "/data-" + std::to_string(pid_);
  journal_ = Fd(open(journal.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600));
  if (!journal_.ok())
    Fatal("cannot open the durability journal " + journal + ": " + strerror(errno));
  data_ = Fd(open(data.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
  struct stat st {};
  if (!data_.ok() || fstat(data_.get(), &st) != 0)
    Fatal("cannot open " + data + ": " + strerror(errno));
  data_end_ = st.st_size;
}

off_t Journal::Copy(int src, off_t from, off_t len) {
  off_t done = 0;
  while (done < len) {
    loff_t in = from + done, out = data_end_ + done;
    ssize_t n = copy_file_range(src, &in, data_.get(), &out, static_cast<size_t>(len - done), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EXDEV || errno == EINVAL || errno == EOPNOTSUPP || errno == ENOSYS)) {
      char buf[16384];  // a file system without copy_file_range between these files
      size_t want = len - done < static_cast<off_t>(sizeof buf) ? static_cast<size_t>(len - done)
                                                                : sizeof buf;
      n = pread(src, buf, want, from + done);
      if (n > 0 && pwrite(data_.get(), buf, static_cast<size_t>(n), data_end_ + done) != n) n = -1;
    }
    if (n < 0 && errno == EFBIG) return -1;
    if (n < 0)
      Fatal("cannot copy a synced file to the durability journal: " + std::string(strerror(errno)));
    if (n == 0) break;  // the file shrank meanwhile
    done += n;
  }
  return done;
}

Journal::Result Journal::Sync(int file, const struct stat& st) {
  if (!on() || !S_ISREG(st.st_mode) || st.st_nlink == 0) return Result::kRecorded;
  Open();
  Fd reader;
  int flags = fcntl(file, F_GETFL);
  if (flags < 0 || (flags & O_ACCMODE) == O_WRONLY) {
    std::string self = "/proc/self/fd/" + std::to_string(file);
    reader = Fd(open(self.c_str(), O_RDONLY | O_CLOEXEC));
    if (!reader.ok())
      Fatal("cannot read a synced file for the durability journal: " +
            std::string(strerror(errno)));
    file = reader.get();
  }
  auto key = std::make_pair(st.st_dev, st.st_ino);
  auto f = files_.find(key);
  bool delta = f != files_.end() && f->second.clean &&
               SameStamp(f->second.size, f->second.mtime, st) && st.st_size >= f->second.recorded;
  off_t from = delta ? f->second.recorded : 0;
  off_t copied = Copy(file, from, st.st_size - from);
  if (copied < 0) return Result::kTooBig;
  char line[160];
  int n = delta ? snprintf(line, sizeof line, "A %llu %d %lld %lld %lld\n",
                           static_cast<unsigned long long>(st.st_ino), static_cast<int>(pid_),
                           static_cast<long long>(data_end_), static_cast<long long>(copied),
                           static_cast<long long>(from))
                : snprintf(line, sizeof line, "F %llu %d %lld %lld\n",
                           static_cast<unsigned long long>(st.st_ino), static_cast<int>(pid_),
                           static_cast<long long>(data_end_), static_cast<long long>(copied));
  ssize_t w = write(journal_.get(), line, static_cast<size_t>(n));
  if (w < 0 && errno == EFBIG) return Result::kTooBig;
  if (w != n) Fatal("cannot write the durability journal in " + dir_);
  data_end_ += copied;
  if (f == files_.end()) {
    if (files_.size() >= kMaxFiles) files_.clear();
    f = files_.emplace(key, File{}).first;
  }
  f->second = {from + copied, st.st_size, st.st_mtim, true};
  return Result::kRecorded;
}

void Journal::Wrote(const struct stat& before, const struct stat& after, int64_t at) {
  auto f = files_.find({before.st_dev, before.st_ino});
  if (f == files_.end()) return;
  File& file = f->second;
  if (!SameStamp(file.size, file.mtime, before) || at < 0 || at < file.recorded ||
      after.st_size < file.recorded || after.st_ino != before.st_ino) {
    file.clean = false;
  }
  file.size = after.st_size;
  file.mtime = after.st_mtim;
}

void Journal::Changed(const struct stat& st) {
  auto f = files_.find({st.st_dev, st.st_ino});
  if (f != files_.end()) f->second.clean = false;
}

}  // namespace killpoint::supervisor
