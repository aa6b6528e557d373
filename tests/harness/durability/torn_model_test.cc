// torn: one seeded cut among the namespace states recorded; different seeds reach different
// ones.
#include "durability/torn_model.h"

#include <gtest/gtest.h>

#include "model_unit_box.h"

namespace killpoint::durability {
namespace {

TEST(TornModelUnit, SeedsChooseAmongTheRecordedNamespaceStates) {
  TornModel unit;
  ModelUnitBox box(unit);
  ASSERT_TRUE(box.Begin());
  box.Before("open", "new");  // a create: the namespace before it is a cut
  box.Write("new", "data");
  ASSERT_TRUE(unit.Seeded());
  bool with = false, without = false;
  for (uint64_t seed = 0; seed < 64; ++seed) {
    (box.Survivors(seed).files.count("new") ? with : without) = true;
  }
  EXPECT_TRUE(with);
  EXPECT_TRUE(without);
}

TEST(TornModelUnit, ASyncedDirectoryAndFileSurviveEveryCut) {
  TornModel unit;
  ModelUnitBox box(unit);
  ASSERT_TRUE(box.Begin());
  box.Before("open", "new");
  box.Write("new", "data");
  box.Fsync("new");
  box.Fsync(".");
  for (uint64_t seed = 0; seed < 16; ++seed) EXPECT_EQ(box.Survivors(seed).files.at("new"), "data");
}

}  // namespace
}  // namespace killpoint::durability
