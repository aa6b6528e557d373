// server_kill_loses_nothing (docs/services.md, "Server faults"), read from server_fault events.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "check_fixture.h"
#include "history/event_registry.h"

namespace killpoint {
namespace {

using ::testing::HasSubstr;

void ServerFault(CheckFixture& f, const nlohmann::json& extra) {
  f.history().SetContext({"2026-11-01", 1, 1});
  nlohmann::json data = {{"service", "db"},
                         {"kind", "postgres"},
                         {"durability", "fast"},
                         {"action", "kill"},
                         {"point", "after_commit"},
                         {"hit", 1},
                         {"before", 3},
                         {"lost", 0},
                         {"missing", nlohmann::json::array()}};
  data.update(extra);
  f.history().Add(event::ServerFault::kType, data);
}

TEST(ServerKillLosesNothing, HoldsWithoutAServerKillAndSaysSo) {
  CheckFixture f;
  ServerFault(f, {{"action", "pause"}});  // a pause is no kill
  Verdict v = f.Check("server_kill_loses_nothing");
  EXPECT_TRUE(v.held);
  EXPECT_EQ(v.explanation, "no server was killed in this trial");
}

TEST(ServerKillLosesNothing, HoldsWhenTheRestartedServerHasEverything) {
  CheckFixture f;
  ServerFault(f, nlohmann::json::object());
  Verdict v = f.Check("server_kill_loses_nothing");
  EXPECT_TRUE(v.held) << v;
  EXPECT_THAT(v.explanation, HasSubstr("3 rows or keys held before them, none lost"));
}

TEST(ServerKillLosesNothing, NamesTheKillAndWhatIsMissing) {
  CheckFixture f;
  ServerFault(f, {{"lost", 1}, {"missing", {"public.daily_settlement (2026-11-01,350)"}}});
  Verdict v = f.Check("server_kill_loses_nothing");
  EXPECT_FALSE(v.held);
  EXPECT_EQ(v.explanation,
            "2026-11-01#1 a1: service db (postgres, fast) killed at after_commit#1, lost 1 of 3 "
            "rows or keys it held before the kill: public.daily_settlement (2026-11-01,350)");
}

TEST(ServerKillLosesNothing, ASnapshotThatCouldNotBeReadIsNoPass) {
  CheckFixture f;
  ServerFault(f, {{"error", "timeout"}});
  Verdict v = f.Check("server_kill_loses_nothing");
  EXPECT_FALSE(v.held);
  EXPECT_THAT(v.explanation, HasSubstr("could not be compared: timeout"));
}

}  // namespace
}  // namespace killpoint
