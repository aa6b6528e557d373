// The durability journal (KILLPOINT_SHADOW; docs/syscall-shim.md, "The durability journal"),
// kept by the supervisor as the shim keeps it, so that under the power model a sync of a
// regular file need not wait for the harness: before the supervisor lets a sync of a sandbox
// file be done, it copies the file's content to the end of its data file, DIR/data-<pid> (the
// supervisor's pid), then appends one line to DIR/journal:
//
//   F <ino> <pid> <off> <len>          the file's whole content: data-<pid>[off, off+len)
//   A <ino> <pid> <off> <len> <keep>   the first <keep> bytes of what was recorded last for
//                                      <ino>, then data-<pid>[off, off+len)
//
// An A line is written only when, since the last record of the file, every change to it was a
// write the supervisor performed at or after <keep>, and its size and mtime are what the last
// of them left (the shim's rule; the supervisor performs every named write of the job's
// processes, so a write of another process counts as seen). Anything else (a truncate, a copy
// the kernel made, an O_TRUNC open, a store through a mapping that moved the mtime) gets an F
// line, and so does the first record of a file whose inode number an unlink or a rename the
// supervisor performed has freed (a new file may get the number: the shim cannot know that). A
// file no name leads to (st_nlink 0) is not recorded.
//
// Not thread-safe: the supervisor's one loop uses it.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "supervisor/fd.h"

namespace killpoint::supervisor {

class Journal {
 public:
  // `dir`: KILLPOINT_SHADOW's value; empty: no journal.
  explicit Journal(std::string dir = {}) : dir_(std::move(dir)) {}
  bool on() const { return !dir_.empty(); }

  enum class Result { kRecorded, kTooBig };
  // Before the sync of a regular sandbox file whose fstat is `st`: records its content, read
  // through `file`, a descriptor on it (reopened for reading when it was opened write-only).
  // kTooBig: the data file would pass the job's file size limit (EFBIG): the caller kills the
  // job with SIGXFSZ, as the shim's process dies of it. Exits 70 (Fatal) when the record cannot
  // be made otherwise: the sync could not be kept.
  Result Sync(int file, const struct stat& st);
  // After a write the supervisor performed: `before` and `after` are the file's fstat around it;
  // `at` the lowest offset it wrote at.
  void Wrote(const struct stat& before, const struct stat& after, int64_t at);
  // The file changed in a way the journal does not follow (a truncate, a copy, a store through a
  // mapping): its next record is whole.
  void Changed(const struct stat& st);
  // A name of the file goes (an unlink, a rename over it): a new file may get its inode number,
  // whose first record must be whole whatever its size and mtime.
  void Forget(const struct stat& st) { files_.erase({st.st_dev, st.st_ino}); }

 private:
  struct File {
    off_t recorded = 0;  // the size the last record gave it
    off_t size = 0;      // its size and mtime after the last change the journal knows of
    timespec mtime{};
    bool clean = false;  // since that record, only writes at or after `recorded`
  };
  void Open();
  // Copies [from, from + len) of `src` to the end of the data file; returns the bytes copied
  // (fewer when the file shrank meanwhile), -1 past the file size limit (EFBIG).
  off_t Copy(int src, off_t from, off_t len);

  std::string dir_;
  pid_t pid_ = 0;  // the supervisor's: its data file's name and the lines' pid
  Fd journal_, data_;
  off_t data_end_ = 0;
  std::map<std::pair<dev_t, ino_t>, File> files_;
};

}  // namespace killpoint::supervisor
