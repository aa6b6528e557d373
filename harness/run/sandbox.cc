#include "run/sandbox.h"

#include <linux/magic.h>
#include <stdlib.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "proc/orphan_guard.h"

namespace killpoint {

Result<Sandbox> Sandbox::Create(const std::filesystem::path& root, const std::string& prefix) {
  std::error_code ec;
  std::filesystem::create_directories(root, ec);
  if (ec) return Error::Harness("cannot create " + root.string() + ": " + ec.message());
  std::string templ = (root / (prefix + "XXXXXX")).string();
  if (!::mkdtemp(templ.data())) {
    return Error::Harness("cannot create a sandbox in " + root.string() + ": " +
                          std::strerror(errno));
  }
  Sandbox box{std::filesystem::path(templ)};
  std::filesystem::create_directory(box.work(), ec);
  if (!ec) std::filesystem::create_directory(box.logs(), ec);
  if (ec) return Error::Harness("cannot prepare sandbox " + templ + ": " + ec.message());
  return box;
}

Sandbox::Sandbox(Sandbox&& other) noexcept
    : root_(std::exchange(other.root_, {})), keep_(other.keep_) {}

Sandbox& Sandbox::operator=(Sandbox&& other) noexcept {
  if (this != &other) {
    Remove();
    root_ = std::exchange(other.root_, {});
    keep_ = other.keep_;
  }
  return *this;
}

Sandbox::~Sandbox() { Remove(); }

void Sandbox::Remove() {
  if (root_.empty() || keep_) return;
  std::error_code ec;
  if (std::filesystem::remove_all(root_, ec) != static_cast<std::uintmax_t>(-1) && !ec) return;
  // A job may have left a folder it cannot be listed or emptied (chmod 000): give every folder
  // back to its owner, then try again.
  namespace fs = std::filesystem;
  fs::permissions(root_, fs::perms::owner_all, fs::perm_options::add, ec);
  for (auto it = fs::recursive_directory_iterator(
           root_, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_directory(ec) && !it->is_symlink(ec)) {
      fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
    }
  }
  fs::remove_all(root_, ec);
}

std::filesystem::path RamFolder() {
  const char* dir = "/dev/shm";
  struct statfs fs_info {};
  if (::statfs(dir, &fs_info) != 0) return {};
  if (fs_info.f_type != TMPFS_MAGIC && fs_info.f_type != RAMFS_MAGIC) return {};
  if (::access(dir, W_OK | X_OK) != 0) return {};
  if (static_cast<uintmax_t>(fs_info.f_bavail) * static_cast<uintmax_t>(fs_info.f_bsize) <
      kMinRamFree)
    return {};
  return dir;
}

int64_t RamReserve(const std::filesystem::path& dir) {
  struct statfs fs_info {};
  if (::statfs(dir.c_str(), &fs_info) != 0) return 0;
  return fs_info.f_type == TMPFS_MAGIC || fs_info.f_type == RAMFS_MAGIC ? kRamReserve : 0;
}

Result<std::unique_ptr<SandboxRoot>> SandboxRoot::Make(const std::filesystem::path& requested,
                                                       bool keep, SandboxStorage storage) {
  // --sandbox-root DIR is where the run's own folder goes, as the temp folder is otherwise:
  // whatever the run makes there (sandboxes, server folders and templates) is gone when it
  // ends unless --keep (issue 34: every run that started PostgreSQL left its 39 MB template
  // in DIR), and DIR itself is the user's.
  std::filesystem::path parent = requested;
  if (parent.empty() && storage == SandboxStorage::kRam) parent = RamFolder();
  if (parent.empty()) parent = std::filesystem::temp_directory_path();
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);
  std::string templ = (parent / "killpoint-XXXXXX").string();
  if (!::mkdtemp(templ.data()))
    return Error::Harness("cannot create a folder in " + parent.string());
  // A harness killed with SIGKILL cannot remove it: its orphan guard does.
  if (!keep) RemoveOnHarnessDeath(templ);
  return std::make_unique<SandboxRoot>(std::filesystem::path(templ), !keep);
}

SandboxRoot::~SandboxRoot() {
  std::error_code ec;
  if (owned_) std::filesystem::remove_all(path_, ec);
}

}  // namespace killpoint
