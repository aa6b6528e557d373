#include "run/durability.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

namespace killpoint {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class DurabilityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static int n = 0;
    work_ = fs::temp_directory_path() / ("kp-durability-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
    fs::remove_all(work_);
    fs::create_directories(work_);
  }
  void TearDown() override { fs::remove_all(work_); }

  void Write(const std::string& name, const std::string& content) {
    std::ofstream(work_ / name, std::ios::binary | std::ios::trunc) << content;
  }
  std::string Read(const std::string& name) {
    std::ifstream in(work_ / name, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  // The common recipe: temp file, fsync, rename over the state file.
  void SaveByRename(const std::string& content, bool sync_dir) {
    Write("state.json.tmp", content);
    tracker_.OnSync("state.json.tmp");
    fs::rename(work_ / "state.json.tmp", work_ / "state.json");
    if (sync_dir) tracker_.OnSync(".");
  }

  fs::path work_;
  DurabilityTracker tracker_;
};

TEST_F(DurabilityTest, ProcessModelKeepsEverything) {
  Write("state.json", "old");
  ASSERT_TRUE(tracker_.Begin(work_));
  SaveByRename("new", false);
  auto changes = tracker_.Apply(kModelProcess, 1);
  ASSERT_TRUE(changes);
  EXPECT_TRUE(changes.value().empty());
  EXPECT_EQ(Read("state.json"), "new");
}

TEST_F(DurabilityTest, PowerLosesARenameWhoseDirectoryWasNeverSynced) {
  Write("state.json", "old");
  ASSERT_TRUE(tracker_.Begin(work_));
  SaveByRename("new", false);
  auto changes = tracker_.Apply(kModelPower, 1);
  ASSERT_TRUE(changes) << changes.error().message;
  EXPECT_EQ(Read("state.json"), "old");
  EXPECT_FALSE(fs::exists(work_ / "state.json.tmp"));
  EXPECT_THAT(changes.value(), ::testing::Contains(HasSubstr("state.json: 3 bytes before the crash")));
}

TEST_F(DurabilityTest, PowerKeepsARenameOnceTheDirectoryIsSynced) {
  Write("state.json", "old");
  ASSERT_TRUE(tracker_.Begin(work_));
  SaveByRename("new", true);
  ASSERT_TRUE(tracker_.Apply(kModelPower, 1));
  EXPECT_EQ(Read("state.json"), "new");
}

TEST_F(DurabilityTest, PowerLosesAFirstSaveWithoutDirectorySync) {
  ASSERT_TRUE(tracker_.Begin(work_));
  SaveByRename("new", false);
  auto changes = tracker_.Apply(kModelPower, 1);
  ASSERT_TRUE(changes);
  EXPECT_FALSE(fs::exists(work_ / "state.json"));
  EXPECT_THAT(changes.value(), ::testing::Contains(HasSubstr("state.json: its name was never made durable")));
}

TEST_F(DurabilityTest, PowerLeavesADurablyNamedButNeverSyncedFileEmpty) {
  ASSERT_TRUE(tracker_.Begin(work_));
  Write("log", "written, never fsync'ed");
  tracker_.OnSync(".");
  ASSERT_TRUE(tracker_.Apply(kModelPower, 1));
  ASSERT_TRUE(fs::exists(work_ / "log"));
  EXPECT_EQ(Read("log"), "");
}

TEST_F(DurabilityTest, PowerRollsBackInPlaceWritesAndUnsyncedUnlinks) {
  Write("a", "durable a");
  Write("b", "durable b");
  ASSERT_TRUE(tracker_.Begin(work_));
  Write("a", "{\"trunc");  // truncate and rewrite in place, never synced
  fs::remove(work_ / "b");
  ASSERT_TRUE(tracker_.Apply(kModelPower, 1));
  EXPECT_EQ(Read("a"), "durable a");
  EXPECT_EQ(Read("b"), "durable b");
}

TEST_F(DurabilityTest, PowerKeepsNestedDirectoriesAsSynced) {
  fs::create_directories(work_ / "d");
  Write("d/x", "old");
  ASSERT_TRUE(tracker_.Begin(work_));
  Write("d/x", "new");
  tracker_.OnSync("d/x");
  fs::create_directories(work_ / "e");  // never synced: gone
  ASSERT_TRUE(tracker_.Apply(kModelPower, 1));
  EXPECT_EQ(Read("d/x"), "new");
  EXPECT_FALSE(fs::exists(work_ / "e"));
}

TEST_F(DurabilityTest, TornMixesSectorsOfOldAndNewDeterministically) {
  std::string old_bytes(4096, 'o'), new_bytes(6144, 'n');
  auto torn = [&](uint64_t seed) {
    Write("f", old_bytes);
    EXPECT_TRUE(tracker_.Begin(work_));
    Write("f", new_bytes);
    EXPECT_TRUE(tracker_.Apply(kModelTorn, seed));
    return Read("f");
  };
  std::string a = torn(7);
  EXPECT_EQ(a, torn(7));  // same seed, same tear
  EXPECT_GE(a.size(), old_bytes.size());
  EXPECT_LE(a.size(), new_bytes.size());
  for (size_t at = 0; at < a.size(); at += 512) {
    std::string sector = a.substr(at, 512);
    EXPECT_TRUE(sector[0] == 'o' || sector[0] == 'n' || sector[0] == '\0') << at;
    EXPECT_EQ(sector.find_first_not_of(sector[0]), std::string::npos) << "sector at " << at << " is mixed";
  }
  std::set<std::string> seen;
  for (uint64_t seed = 0; seed < 20; ++seed) seen.insert(torn(seed));
  EXPECT_GT(seen.size(), 5u);
}

}  // namespace
}  // namespace killpoint
