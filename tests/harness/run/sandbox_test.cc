// Where sandboxes go: RAM by default when the machine has a RAM file system with room, the temp
// folder for --real-disk, the user's folder when named (docs/decisions.md, "Sandboxes live in
// RAM").
#include "run/sandbox.h"

#include <gtest/gtest.h>
#include <linux/magic.h>
#include <sys/statfs.h>

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

TEST(SandboxRootTest, ANamedFolderIsUsedAsItIsAndKept) {
  fs::path mine = fs::temp_directory_path() / "kp-sandbox-root-test";
  fs::create_directories(mine);
  {
    auto root = SandboxRoot::Make(mine, false, SandboxStorage::kRam);
    ASSERT_TRUE(root) << root.error().message;
    EXPECT_EQ(root.value()->path(), mine);
  }
  EXPECT_TRUE(fs::exists(mine));
  fs::remove_all(mine);
}

}  // namespace
}  // namespace killpoint
