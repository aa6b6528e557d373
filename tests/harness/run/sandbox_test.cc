// Where sandboxes go: RAM by default when the machine has a RAM file system with room, the temp
// folder for --real-disk, the user's folder when named (docs/decisions.md, "Sandboxes live in
// RAM").
#include "run/sandbox.h"

#include <gtest/gtest.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <filesystem>

namespace killpoint {
namespace {

namespace fs = std::filesystem;

bool OnRam(const fs::path& p) {
  struct statfs info {};
  return ::statfs(p.c_str(), &info) == 0 &&
         (info.f_type == TMPFS_MAGIC || info.f_type == RAMFS_MAGIC);
}

TEST(SandboxRootTest, RamFolderIsARamFileSystemOrNothing) {
  fs::path ram = RamFolder();
  if (ram.empty()) GTEST_SKIP() << "no RAM file system with 512 MiB free here";
  EXPECT_TRUE(OnRam(ram)) << ram;
}

TEST(SandboxRootTest, DefaultGoesToRamAndIsRemovedWithItsContents) {
  fs::path made;
  {
    auto root = SandboxRoot::Make("", false);
    ASSERT_TRUE(root) << root.error().message;
    made = root.value()->path();
    fs::path ram = RamFolder();
    EXPECT_EQ(made.parent_path(), ram.empty() ? fs::temp_directory_path() : ram);
    auto box = Sandbox::Create(made, "trial-0-");
    ASSERT_TRUE(box) << box.error().message;
    EXPECT_TRUE(fs::is_directory(box.value().work()));
  }
  EXPECT_FALSE(fs::exists(made));
}

TEST(SandboxRootTest, RealDiskGoesToTheTempFolder) {
  auto root = SandboxRoot::Make("", false, SandboxStorage::kDisk);
  ASSERT_TRUE(root) << root.error().message;
  EXPECT_EQ(root.value()->path().parent_path(), fs::temp_directory_path());
}

// --sandbox-root DIR: the run makes its own folder in DIR and removes it with everything in it
// (a server's template too: issue 34 found PostgreSQL's, 39 MB, left in DIR by every run);
// DIR itself stays. With --keep the run's folder stays.
TEST(SandboxRootTest, ANamedFolderGetsTheRunsOwnFolderWhichIsRemovedUnlessKept) {
  fs::path mine =
      fs::temp_directory_path() / ("kp-sandbox-root-test-" + std::to_string(::getpid()));
  fs::remove_all(mine);
  fs::path made;
  {
    auto root = SandboxRoot::Make(mine / "not-yet", false, SandboxStorage::kRam);
    ASSERT_TRUE(root) << root.error().message;
    made = root.value()->path();
    EXPECT_EQ(made.parent_path(), mine / "not-yet");
    EXPECT_EQ(made.filename().string().rfind("killpoint-", 0), 0u) << made;
    fs::create_directories(made / "service-postgres-template-abc123" / "data");
  }
  EXPECT_FALSE(fs::exists(made));
  EXPECT_TRUE(fs::is_directory(mine / "not-yet"));
  EXPECT_TRUE(fs::is_empty(mine / "not-yet"));
  {
    auto root = SandboxRoot::Make(mine, true, SandboxStorage::kRam);
    ASSERT_TRUE(root) << root.error().message;
    made = root.value()->path();
  }
  EXPECT_TRUE(fs::is_directory(made));
  fs::remove_all(mine);
}

}  // namespace
}  // namespace killpoint
