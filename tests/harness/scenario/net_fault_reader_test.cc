// A scenario's faults.net (docs/services.md, "Faults between the job and its services"): what
// the parser reads, and each mistake refused with its field path.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <tuple>
#include <vector>

#include "error_of.h"
#include "scenario/net_point.h"
#include "scenario/scenario_parser.h"

namespace killpoint {
namespace {

using ::testing::HasSubstr;

const char* kWithNet = R"({
  "name": "services/net",
  "job": {"command": ["true"]},
  "dates": ["2026-11-01"],
  "services": {"db": {"kind": "postgres"}},
  "faults": {"net": {"points": ["net:db:commit"], "actions": ["drop_answer"], "probability": 1}},
  "invariants": {"must_hold": ["converges"]}
})";

Result<Scenario> ParseNetWith(const std::string& pointer, const std::string& value) {
  nlohmann::json j = nlohmann::json::parse(kWithNet);
  j[nlohmann::json::json_pointer(pointer)] = nlohmann::json::parse(value);
  return ParseScenario(j.dump(), "s.json");
}

TEST(NetPoint, ParsesServiceAndMoment) {
  EXPECT_EQ(ParseNetPoint("net:db:commit"), (NetPoint{"db", "commit"}));
  EXPECT_EQ(ParseNetPoint("net:cache:connect"), (NetPoint{"cache", "connect"}));
  EXPECT_EQ(ParseNetPoint("net:cache:set_nx"), (NetPoint{"cache", "set_nx"}));
  EXPECT_EQ(NetActionsAt("set_nx"), NetActionsAt("commit"));
  EXPECT_EQ(ParseNetPoint("net:db:UPDATE"), (NetPoint{"db", "UPDATE"}));  // a command point
  EXPECT_EQ(ParseNetPoint("net:mq:basic.publish"), (NetPoint{"mq", "basic.publish"}));
  EXPECT_EQ(NetActionsAt("UPDATE"), NetActionsAt("commit"));
  EXPECT_TRUE(TakesMs(NetAction::kStall));
  EXPECT_FALSE(TakesMs(NetAction::kReset));
  EXPECT_EQ(NetActionsFitting("net:db:UPDATE",
                              {NetAction::kRefuse, NetAction::kStall, NetAction::kDropAnswer}),
            (std::vector<NetAction>{NetAction::kDropAnswer, NetAction::kStall}));
  EXPECT_EQ(NetActionsFitting("net:db:connect", {NetAction::kRefuse}),
            (std::vector<NetAction>{NetAction::kRefuse}));
  EXPECT_TRUE(NetActionsFitting("after_commit", {NetAction::kRefuse}).empty());
  // rollback: the proxy spells verbs in upper case, so a lower-case one is a typo.
  for (const char* bad : {"net:db", "net::commit", "net:db:rollback", "downstream:/x:y",
                          "net:db:Update", "net:mq:basic", "net:mq:basic.Ack", "net:db:1X"}) {
    EXPECT_EQ(ParseNetPoint(bad), std::nullopt) << bad;
  }
}

TEST(NetFaults, AreReadWithTheirDefaults) {
  auto s = ParseScenario(kWithNet, "s.json");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s.value().faults.net,
            (NetSpec{{"net:db:commit"}, {NetAction::kDropAnswer}, 1.0, 1, 500}));
  auto full = ParseNetWith("/faults/net",
                           R"({"points": ["net:db:commit", "net:db:connect"],
                               "actions": ["delay", "refuse"], "probability": 0.5,
                               "max_hit": 3, "ms": 40})");
  ASSERT_TRUE(full) << full.error().message;
  EXPECT_EQ(full.value().faults.net.max_hit, 3);
  EXPECT_EQ(full.value().faults.net.ms, 40);
}

TEST(NetFaults, EachMistakeNamesItsField) {
  EXPECT_THAT(ErrorOf(ParseNetWith("/faults/net/points/0", R"("net:db:rollback")")),
              HasSubstr("faults.net.points[0]"));
  EXPECT_THAT(ErrorOf(ParseNetWith("/faults/net/points/0", R"("net:cache:commit")")),
              HasSubstr("names no service of the scenario: 'cache'"));
  EXPECT_THAT(ErrorOf(ParseNetWith("/faults/net/actions/0", R"("refuse")")),
              HasSubstr("faults.net.actions[0]"));
  EXPECT_THAT(ErrorOf(ParseNetWith("/faults/net/actions/0", R"("drop_anwser")")),
              HasSubstr("faults.net.actions[0]: unknown action 'drop_anwser' (did you mean "
                        "'drop_answer'? known: drop_answer, reset, delay, stall, refuse)"));
  EXPECT_THAT(ErrorOf(ParseNetWith("/faults/net/actions", R"(["reset", "reset"])")),
              HasSubstr("faults.net.actions[1]: 'reset' is listed twice"));
  EXPECT_THAT(ErrorOf(ParseNetWith("/faults/net/max_hit", "0")), HasSubstr("faults.net.max_hit"));
  EXPECT_THAT(ErrorOf(ParseNetWith("/faults/net/points/0", R"("net:db:set_nx")")),
              HasSubstr("faults.net.points[0]: 'db' is a postgres service; the proxy sees SET ... "
                        "NX on redis services only"));
  nlohmann::json j = nlohmann::json::parse(kWithNet);
  j["faults"]["net"].erase("probability");
  EXPECT_THAT(ErrorOf(ParseScenario(j.dump(), "s.json")), HasSubstr("probability"));
}

// Each counted moment on the kinds whose framing the proxy reads: a COMMIT on postgres and
// mariadb, a SET ... NX on redis; a connection on any.
TEST(NetFaults, EachMomentIsTakenOnTheKindsThatHaveIt) {
  for (const auto& [kind, moment, ok] :
       std::vector<std::tuple<std::string, std::string, bool>>{{"postgres", "commit", true},
                                                               {"mariadb", "commit", true},
                                                               {"redis", "commit", false},
                                                               {"rabbitmq", "commit", false},
                                                               {"redis", "set_nx", true},
                                                               {"mariadb", "set_nx", false},
                                                               {"rabbitmq", "connect", true},
                                                               {"postgres", "UPDATE", true},
                                                               {"redis", "DEL", true},
                                                               {"rabbitmq", "DEL", false},
                                                               {"rabbitmq", "basic.ack", true},
                                                               {"postgres", "basic.ack", false}}) {
    nlohmann::json j = nlohmann::json::parse(kWithNet);
    j["services"]["db"]["kind"] = kind;
    j["faults"]["net"]["points"][0] = "net:db:" + moment;
    j["faults"]["net"]["actions"][0] = moment == "connect" ? "refuse" : "drop_answer";
    auto parsed = ParseScenario(j.dump(), "s.json");
    EXPECT_EQ(bool(parsed), ok) << kind << " " << moment << ": "
                                << (parsed ? "" : parsed.error().message);
    EXPECT_EQ(NetMomentSeenOn(moment, kind), ok) << kind << " " << moment;
  }
}

}  // namespace
}  // namespace killpoint
