// A trial's sandbox: a fresh directory that persists across the trial's attempts. Its work/
// folder is the job's "disk" (KILLPOINT_WORKDIR); logs/ holds each attempt's stdout and stderr.
// Removed when the Sandbox is destroyed, unless kept.
#pragma once

#include <filesystem>

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

}  // namespace killpoint
