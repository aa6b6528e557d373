// util/name_table.h: a table spells each name of an enum once; an enum that names its table
// (NamesOf) reads and writes JSON as its name, and a name the table lacks is an error naming
// every listed one.
#include "util/name_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace killpoint {
namespace {

enum class Colour { kRed, kDarkBlue };
constexpr auto kColourNames =
    MakeNameTable<Colour>({{Colour::kRed, "red"}, {Colour::kDarkBlue, "dark_blue"}}, "a colour");
static_assert(kColourNames.Unique());
constexpr const auto& NamesOf(Colour) { return kColourNames; }

enum class Unnamed { kA };  // no NamesOf: no JSON of its name
static_assert(NamedEnum<Colour>);
static_assert(!NamedEnum<Unnamed>);
static_assert(!MakeNameTable<Unnamed>({{Unnamed::kA, "a"}, {Unnamed::kA, "b"}}).Unique());
static_assert(NameOf(Colour::kDarkBlue) == "dark_blue");

TEST(NameTable, ANamedEnumIsItsNameInJson) {
  EXPECT_EQ(nlohmann::json(Colour::kDarkBlue), "dark_blue");
  EXPECT_EQ(nlohmann::json("red").get<Colour>(), Colour::kRed);
  EXPECT_EQ(nlohmann::json(std::vector<Colour>{Colour::kRed}).dump(), R"(["red"])");
}

TEST(NameTable, ANameItLacksOrANonStringIsAJsonErrorListingItsNames) {
  for (const nlohmann::json& bad : {nlohmann::json("blue"), nlohmann::json(1)}) {
    EXPECT_THAT([&] { (void)bad.get<Colour>(); },
                ::testing::ThrowsMessage<nlohmann::json::type_error>(
                    ::testing::HasSubstr("a colour must be one of: red, dark_blue")))
        << bad;
  }
}

TEST(NameTable, ListsNamesValuesAndTheClosestToATypo) {
  EXPECT_EQ(kColourNames.Listed(" or "), "red or dark_blue");
  EXPECT_EQ(kColourNames.Named("dark_blue"), Colour::kDarkBlue);
  EXPECT_EQ(kColourNames.Named("Red"), std::nullopt);
  EXPECT_EQ(kColourNames.Closest("drak_blue"), "dark_blue");
  EXPECT_EQ(kColourNames.NameOf(static_cast<Colour>(7)), "?");
}

}  // namespace
}  // namespace killpoint
