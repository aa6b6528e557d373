// One captured stream of a job (stdout or stderr): the job writes to a pipe, the harness copies
// it to a file up to a limit and reads and drops the rest, so a job that floods its output
// neither fills the disk nor blocks. A last line in the file says how much was dropped.
// Not thread-safe: the thread that waits for the job drains its streams.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "util/result.h"

namespace killpoint {

class OutputCapture {
 public:
  // A pipe (both ends close-on-exec) and `file`, created or truncated.
  static Result<OutputCapture> Open(const std::filesystem::path& file, int64_t max_bytes,
                                    const std::string& stream_name);
  OutputCapture(OutputCapture&& other) noexcept;
  OutputCapture& operator=(OutputCapture&&) = delete;
  OutputCapture(const OutputCapture&) = delete;
  ~OutputCapture();

  int write_end() const { return write_fd_; }  // for the child, -1 once closed
  int read_end() const { return read_fd_; }    // polled by the waiter, -1 at end of stream
  void CloseWriteEnd();

  // Copies what is available now without blocking; at end of stream closes the read end.
  void Drain();
  // Drains, writes the truncation line if anything was dropped, then `note` (a line the harness
  // adds, such as why the job died; may be empty), closes everything.
  void Finish(const std::string& note = "");

  int64_t dropped() const { return dropped_; }

 private:
  OutputCapture(int read_fd, int write_fd, int file_fd, int64_t max_bytes, std::string name);
  void CloseRead();

  int read_fd_ = -1, write_fd_ = -1, file_fd_ = -1;
  int64_t max_bytes_ = 0;
  int64_t kept_ = 0;
  int64_t dropped_ = 0;
  std::string name_;
};

}  // namespace killpoint
