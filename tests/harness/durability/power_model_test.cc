// power: only what POSIX promises: a file's content as last synced, a name once its
// directory is.
#include "durability/power_model.h"

#include <gtest/gtest.h>

#include "model_unit_box.h"

namespace killpoint::durability {
namespace {

TEST(PowerModelUnit, KeepsAFilesContentAsLastSyncedAndDropsTheRest) {
  PowerModel unit;
  ModelUnitBox box(unit);
  box.Write("log", "a");
  ASSERT_TRUE(box.Begin());
  box.Write("log", "ab");
  box.Fsync("log");
  box.Write("log", "abc");
  EXPECT_EQ(box.Survivors().files.at("log"), "ab");
}

TEST(PowerModelUnit, ANewNameNeedsItsDirectorysFsync) {
  PowerModel unit;
  ModelUnitBox box(unit);
  ASSERT_TRUE(box.Begin());
  box.Before("open", "new");
  box.Write("new", "data");
  box.Fsync("new");
  EXPECT_FALSE(box.Survivors().files.count("new"));
  box.Fsync(".");
  EXPECT_EQ(box.Survivors().files.at("new"), "data");
}

TEST(PowerModelUnit, TakesTheJournalAndNeedsNoSeed) {
  PowerModel unit;
  EXPECT_TRUE(unit.TakesJournal());
  EXPECT_FALSE(unit.Seeded());
  EXPECT_TRUE(unit.Rewrites());
}

}  // namespace
}  // namespace killpoint::durability
