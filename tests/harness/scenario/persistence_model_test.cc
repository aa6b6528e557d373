// The persistence models' names: one spelling each, the same in every file killpoint writes.
#include "scenario/persistence_model.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace killpoint {
namespace {

using ::testing::HasSubstr;

TEST(PersistenceModel, EachNameIsTheOneOnDisk) {
  // Plans, histories and results of every earlier version spell them so.
  EXPECT_EQ(nlohmann::json(PersistenceModel::kProcess).dump(), "\"process\"");
  EXPECT_EQ(nlohmann::json(PersistenceModel::kPower).dump(), "\"power\"");
  EXPECT_EQ(nlohmann::json(PersistenceModel::kTorn).dump(), "\"torn\"");
  EXPECT_EQ(nlohmann::json(PersistenceModel::kExt4Ordered).dump(), "\"ext4-ordered\"");
}

TEST(PersistenceModel, EveryModelRoundTripsThroughJson) {
  for (PersistenceModel m : kPersistenceModels) {
    nlohmann::json j = m;
    EXPECT_EQ(j.get<PersistenceModel>(), m) << j;
    EXPECT_EQ(ModelNamed(NameOf(m)), m);
  }
}

TEST(PersistenceModel, AnUnknownNameListsTheValidOnes) {
  auto r = ParseModel("ext9");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kBadInput);
  EXPECT_EQ(r.error().message,
            "unknown or unavailable persistence model 'ext9' (available: process, power, torn, "
            "ext4-ordered)");
}

TEST(PersistenceModel, ANearMissSaysWhichWasMeant) {
  auto r = ParseModel("pwer");
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message,
              HasSubstr("(did you mean 'power'? available: process, power, torn, ext4-ordered)"));
}

TEST(PersistenceModel, AMalformedJsonValueIsAJsonErrorNamingTheProblem) {
  EXPECT_THROW(nlohmann::json("Power").get<PersistenceModel>(), nlohmann::json::type_error);
  try {
    nlohmann::json(3).get<PersistenceModel>();
    ADD_FAILURE() << "a number read as a model";
  } catch (const nlohmann::json::type_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("a persistence model must be a name"));
  }
  try {
    nlohmann::json("ext9").get<PersistenceModel>();
    ADD_FAILURE() << "ext9 read as a model";
  } catch (const nlohmann::json::type_error& e) {
    EXPECT_THAT(e.what(),
                HasSubstr("unknown or unavailable persistence model 'ext9' (available: process"));
  }
}

TEST(PersistenceModel, NameOrderIsTheOrderOfTheNames) {
  EXPECT_TRUE(NameLess(PersistenceModel::kExt4Ordered, PersistenceModel::kPower));
  EXPECT_TRUE(NameLess(PersistenceModel::kPower, PersistenceModel::kProcess));
  EXPECT_TRUE(NameLess(PersistenceModel::kProcess, PersistenceModel::kTorn));
  EXPECT_FALSE(NameLess(PersistenceModel::kTorn, PersistenceModel::kTorn));
}

}  // namespace
}  // namespace killpoint
