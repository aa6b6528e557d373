#include "channel/outside_path.h"

#include <gtest/gtest.h>

namespace killpoint {
namespace {

const OutsidePlaces kPlaces = {{"/dev/shm/kp-run/trial-Ab12", "/real/trial-Ab12"},
                               {"/tmp", "/var/tmp", "/scratch/t"}};

OutsideWrite Classified(const std::string& path) {
  auto w = ClassifyOutside(path, {"rename", "open"}, kPlaces);
  EXPECT_TRUE(w) << path;
  return w.value_or(OutsideWrite{});
}

TEST(OutsidePath, NextToTheSandboxIsNamedFromTheWorkdir) {
  OutsideWrite w = Classified("/dev/shm/kp-run/trial-Ab12/x");
  EXPECT_EQ(w.path, "$KILLPOINT_WORKDIR/../x");
  EXPECT_EQ(w.kind, outside_kind::kTrial);
  EXPECT_EQ(w.ops, (std::vector<std::string>{"open", "rename"}));
  EXPECT_EQ(Classified("/real/trial-Ab12/logs/a/b").path,
            "$KILLPOINT_WORKDIR/../logs/a/b");  // its realpath
  EXPECT_EQ(Classified("/dev/shm/kp-run/trial-Ab12").path, "$KILLPOINT_WORKDIR/..");
  // A sibling whose name starts like the sandbox's is not in it.
  EXPECT_EQ(Classified("/dev/shm/kp-run/trial-Ab123/x").kind, outside_kind::kElsewhere);
}

TEST(OutsidePath, TemporaryFoldersAndElsewhere) {
  EXPECT_EQ(Classified("/tmp/state.json").kind, outside_kind::kTemp);
  EXPECT_EQ(Classified("/tmp/state.json").path, "/tmp/state.json");
  EXPECT_EQ(Classified("/scratch/t/a").kind, outside_kind::kTemp);
  EXPECT_EQ(Classified("/var/lib/app/state.json").kind, outside_kind::kElsewhere);
  EXPECT_EQ(Classified("/tmpfoo").kind, outside_kind::kElsewhere);
}

TEST(OutsidePath, BytecodeCachesAreNotRecorded) {
  EXPECT_FALSE(
      ClassifyOutside("/src/jobs/__pycache__/job.cpython-311.pyc.140234", {"open"}, kPlaces));
  EXPECT_FALSE(ClassifyOutside("/src/jobs/__pycache__", {"mkdir"}, kPlaces));
  EXPECT_FALSE(ClassifyOutside("/src/jobs/job.pyc", {"open"}, kPlaces));
  EXPECT_TRUE(ClassifyOutside("/src/jobs/not__pycache__/x", {"open"}, kPlaces));
  EXPECT_TRUE(ClassifyOutside("/src/jobs/state.pyc.json", {"open"}, kPlaces));
}

TEST(OutsidePath, TempFoldersAddTheJobsTmpdirOnce) {
  auto folders = TempFolders("/scratch/job-tmp/");
  EXPECT_EQ(folders[0], "/tmp");
  EXPECT_NE(std::find(folders.begin(), folders.end(), "/scratch/job-tmp/"), folders.end());
  EXPECT_EQ(std::count(folders.begin(), folders.end(), "/tmp"), 1);
  EXPECT_EQ(TempFolders("relative/tmp").size(), TempFolders("").size());
}

}  // namespace
}  // namespace killpoint
