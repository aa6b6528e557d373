// An exclusive lock on an output folder for as long as a command writes it (issue 34): two
// runs into one --out both exited 0, trials.jsonl held both seeds and results.json linked the
// other run's counterexamples. The lock is flock(2) on OUT/.killpoint.lock, which names its
// holder (pid, command, start): the kernel drops it when the holder exits, however it exits,
// so a killed run never leaves a stale lock; the file stays.
#pragma once

#include <filesystem>
#include <string>

#include "util/result.h"

namespace killpoint {

class OutputLock {
 public:
  // Creates `out` if needed and locks it for `command` ("killpoint run"). BadInput naming the
  // holder when another process holds it; its message is the user's next step.
  static Result<OutputLock> Take(const std::filesystem::path& out, const std::string& command);

  OutputLock(OutputLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  OutputLock& operator=(OutputLock&&) = delete;
  OutputLock(const OutputLock&) = delete;
  ~OutputLock();

 private:
  explicit OutputLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace killpoint
