// process: a kill -9 leaves the page cache, so the unit keeps everything and rewrites nothing.
#include "durability/process_model.h"

#include <gtest/gtest.h>

#include "model_unit_box.h"

namespace killpoint::durability {
namespace {

TEST(ProcessModelUnit, EverythingSurvivesAndNothingIsRewritten) {
  ProcessModel unit;
  ModelUnitBox box(unit);
  ASSERT_TRUE(box.Begin());
  box.Before("open", "new");
  box.Write("new", "never synced");
  EXPECT_FALSE(unit.Rewrites());
  EXPECT_FALSE(unit.Seeded());
  EXPECT_EQ(box.Survivors().files.at("new"), "never synced");
}

}  // namespace
}  // namespace killpoint::durability
