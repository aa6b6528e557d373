// The registry of service kinds (service/service_kinds.h): every kind of scenario/service_kind.h
// has the harness's side, whose parts agree with what the scenario table says of the kind. A new
// kind is its own files, its line in each table, and these tests run over it unchanged.
#include "service/service_kinds.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "service/client_framing.h"
#include "service/service_set.h"

namespace killpoint {
namespace {

ServiceAddress AddressOf(std::string_view kind) {
  return {std::string(kind), "127.0.0.1", 4321, "db1", "user1", "Secret9"};
}

TEST(ServiceKinds, EveryKindHasTheHarnessesSideUnderItsOwnName) {
  std::set<std::string_view> names;
  for (const ServiceKind& kind : kServiceKinds) {
    const ServiceKindImpl* impl = FindServiceKindImpl(kind.name);
    ASSERT_NE(impl, nullptr) << kind.name;
    EXPECT_EQ(impl->name, kind.name);
    EXPECT_TRUE(names.insert(kind.name).second) << kind.name;
    EXPECT_EQ(impl->read_only != nullptr, kind.check == ServiceCheck::kSql) << kind.name;
  }
  EXPECT_EQ(FindServiceKindImpl("mongodb"), nullptr);
}

TEST(ServiceKinds, TheProxyFramesEveryKindsProtocol) {
  for (const ServiceKind& kind : kServiceKinds) {
    EXPECT_NE(MakeClientFraming(kind.protocol), nullptr) << kind.name;
  }
}

TEST(ServiceKinds, EveryKindsUrlCarriesItsAddressAndPassword) {
  for (const ServiceKind& kind : kServiceKinds) {
    ServiceAddress address = AddressOf(kind.name);
    std::string url = address.Url();
    EXPECT_THAT(url, ::testing::MatchesRegex("[a-z]+://.*:Secret9@127\\.0\\.0\\.1:4321/.*"))
        << kind.name;
    // The run's one service of its kind: its named URL and at least one variable of its own.
    auto env = ServiceEnv({{"only", address}});
    EXPECT_EQ(env.at("KILLPOINT_SERVICE_ONLY_URL"), url) << kind.name;
    EXPECT_GT(env.size(), 1u) << kind.name;
  }
}

TEST(ServiceKinds, AnUnknownKindStartsNothingAndSaysWhy) {
  auto started = StartService("x", "mongodb", "/nonexistent", {});
  ASSERT_FALSE(started);
  EXPECT_THAT(started.error().message, ::testing::HasSubstr("no service kind 'mongodb'"));
}

}  // namespace
}  // namespace killpoint
