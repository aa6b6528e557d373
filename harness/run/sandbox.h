// A trial's sandbox: a fresh directory that persists across the trial's attempts. Its work/
// folder is the job's "disk" (KILLPOINT_WORKDIR); logs/ holds each attempt's stdout and stderr.
// Removed when the Sandbox is destroyed, unless kept.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>

#include "util/result.h"

namespace killpoint {

class Sandbox {
 public:
  // Creates root/<prefix>XXXXXX with work/ and logs/ inside.
  static Result<Sandbox> Create(const std::filesystem::path& root, const std::string& prefix);

  Sandbox(Sandbox&& other) noexcept;
  Sandbox& operator=(Sandbox&& other) noexcept;
  Sandbox(const Sandbox&) = delete;
  Sandbox& operator=(const Sandbox&) = delete;
  ~Sandbox();

  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path work() const { return root_ / "work"; }
  std::filesystem::path logs() const { return root_ / "logs"; }

  // Leave the directory on disk when this object goes away.
  void Keep() { keep_ = true; }

 private:
  explicit Sandbox(std::filesystem::path root) : root_(std::move(root)) {}
  void Remove();
  std::filesystem::path root_;  // empty once moved from
  bool keep_ = false;
};

// Where a run's sandboxes go when it names no folder. Real fsyncs are not what is under test
// (the persistence models decide what a crash keeps), so by default they go to RAM.
enum class SandboxStorage {
  kRam,   // /dev/shm when it is a RAM file system with room (kMinRamFree), else the temp folder
  kDisk,  // the system's temp folder ($TMPDIR, else /tmp)
};
inline constexpr uintmax_t kMinRamFree = uintmax_t{512} << 20;

// kDisk when a run asked for real disks (--real-disk), else kRam.
inline SandboxStorage StorageFor(bool real_disk) {
  return real_disk ? SandboxStorage::kDisk : SandboxStorage::kRam;
}

// The RAM-backed folder a kRam root goes in, or empty when there is none with kMinRamFree free.
std::filesystem::path RamFolder();

// What a job must leave free of the RAM file system `dir` is on: kRamReserve (half of what a
// RAM root needs free to be chosen, kMinRamFree); 0 when `dir` is not in RAM (a disk fills without
// harm to the machine, and RLIMIT_FSIZE caps each file). The runner kills a job that writes past it
// (SpawnRequest::watch_free; issue 34: a job writing many files of 1 GiB each, the per-file cap,
// filled the machine's RAM).
inline constexpr int64_t kRamReserve = 256 << 20;
int64_t RamReserve(const std::filesystem::path& dir);

// The folder the trials' sandboxes go in: a new killpoint-XXXXXX in `requested`, or else in RAM
// or the system's temp folder (`storage`), which is removed with everything in it when this
// object goes (or, after a SIGKILL, by the orphan guard), unless `keep`.
class SandboxRoot {
 public:
  static Result<std::unique_ptr<SandboxRoot>> Make(const std::filesystem::path& requested,
                                                   bool keep,
                                                   SandboxStorage storage = SandboxStorage::kRam);
  SandboxRoot(std::filesystem::path path, bool owned) : path_(std::move(path)), owned_(owned) {}
  SandboxRoot(const SandboxRoot&) = delete;
  SandboxRoot& operator=(const SandboxRoot&) = delete;
  ~SandboxRoot();
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  bool owned_;
};

}  // namespace killpoint
