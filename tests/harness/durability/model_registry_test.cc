// The registry of persistence model units: every model has one, so a new model is its own
// file, its name in scenario/persistence_model.h and one line in model_registry.cc
// (model_registry.cc also checks this when it compiles).
#include "durability/model_registry.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "durability/durability.h"

namespace killpoint::durability {
namespace {

TEST(ModelRegistry, EveryPersistenceModelHasItsUnit) {
  for (PersistenceModel model : kPersistenceModels) {
    auto unit = MakeModel(model);
    ASSERT_NE(unit, nullptr) << NameOf(model) << " has no line in model_registry.cc";
    EXPECT_EQ(unit->kind(), model) << NameOf(model);
  }
}

// The runner tracks and rewrites after a kill exactly under the models whose unit rewrites:
// every one but process, where everything the job wrote survives.
TEST(ModelRegistry, EveryModelButProcessRewritesTheSandbox) {
  for (PersistenceModel model : kPersistenceModels) {
    EXPECT_EQ(Rewrites(model), model != PersistenceModel::kProcess) << NameOf(model);
  }
}

// The planner, which sits below the units, draws a seed for a kill exactly under the models
// whose unit takes one (scenario/persistence_model.h's ModelIsSeeded): a seeded unit given no
// seed would cut the same way every time; a seed for a unit without draws would be noise in
// every plan.
TEST(ModelRegistry, EachUnitIsSeededAsItsModelSays) {
  int seeded = 0;
  for (PersistenceModel model : kPersistenceModels) {
    EXPECT_EQ(MakeModel(model)->Seeded(), ModelIsSeeded(model)) << NameOf(model);
    seeded += ModelIsSeeded(model);
  }
  EXPECT_EQ(seeded, 1);  // torn
}

TEST(ModelRegistry, ListsEachModelOnceInTheirOrder) {
  ASSERT_EQ(ModelUnits().size(), kPersistenceModels.size());
  std::set<PersistenceModel> seen;
  for (size_t i = 0; i < ModelUnits().size(); ++i) {
    EXPECT_EQ(ModelUnits()[i].model, kPersistenceModels[i]);
    EXPECT_TRUE(seen.insert(ModelUnits()[i].model).second);
  }
}

// A tracker begun for no model in particular records for every unit: Apply works for each.
TEST(ModelRegistry, ATrackerWithoutAModelAppliesEveryOne) {
  namespace fs = std::filesystem;
  fs::path work = fs::temp_directory_path() / ("kp-registry-" + std::to_string(::getpid()));
  for (PersistenceModel model : kPersistenceModels) {
    fs::remove_all(work);
    fs::create_directories(work);
    std::ofstream(work / "kept") << "durable";
    DurabilityTracker tracker;
    ASSERT_TRUE(tracker.Begin(work));
    auto changes = tracker.Apply(model, 1);
    ASSERT_TRUE(changes) << NameOf(model);
    EXPECT_TRUE(changes.value().empty()) << NameOf(model);
  }
  fs::remove_all(work);
}

// Begun for one model, the tracker has that unit alone: another model is an error, not a guess.
TEST(ModelRegistry, ATrackerBegunForOneModelAppliesOnlyIt) {
  namespace fs = std::filesystem;
  fs::path work = fs::temp_directory_path() / ("kp-registry-one-" + std::to_string(::getpid()));
  fs::remove_all(work);
  fs::create_directories(work);
  DurabilityTracker tracker;
  ASSERT_TRUE(tracker.Begin(work, PersistenceModel::kPower));
  EXPECT_FALSE(tracker.Apply(PersistenceModel::kTorn, 1));
  EXPECT_TRUE(tracker.Apply(PersistenceModel::kPower, 1));
  fs::remove_all(work);
}

}  // namespace
}  // namespace killpoint::durability
