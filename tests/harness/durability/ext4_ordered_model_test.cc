// ext4-ordered: a journal commit makes every name operation so far durable; data is on disk
// only once written back.
#include "durability/ext4_ordered_model.h"

#include <gtest/gtest.h>

#include "model_unit_box.h"

namespace killpoint::durability {
namespace {

TEST(Ext4OrderedModelUnit, AFilesFsyncCommitsItsNewName) {
  Ext4OrderedModel unit;
  ModelUnitBox box(unit);
  ASSERT_TRUE(box.Begin());
  box.Before("open", "new");
  box.Write("new", "data");
  box.Fsync("new");  // a new file: its allocation commits the journal, its name with it
  EXPECT_EQ(box.Survivors().files.at("new"), "data");
}

TEST(Ext4OrderedModelUnit, AFileNeverCommittedIsGone) {
  Ext4OrderedModel unit;
  ModelUnitBox box(unit);
  ASSERT_TRUE(box.Begin());
  box.Before("open", "new");
  box.Write("new", "data");
  EXPECT_FALSE(box.Survivors().files.count("new"));
}

TEST(Ext4OrderedModelUnit, WordsLossesAsTheJournalDoes) {
  Ext4OrderedModel unit;
  EXPECT_NE(unit.wording().gone.find("journal"), std::string::npos);
  EXPECT_FALSE(unit.Seeded());
  EXPECT_FALSE(unit.TakesJournal());
}

}  // namespace
}  // namespace killpoint::durability
