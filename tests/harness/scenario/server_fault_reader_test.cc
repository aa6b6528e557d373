// A scenario's faults.server and a service's durability (docs/services.md, "Server faults"):
// what the parser reads and its defaults. Each mistake is a fixture of tests/fixtures/malformed/.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "error_of.h"
#include "scenario/scenario_parser.h"

namespace killpoint {
namespace {

using ::testing::HasSubstr;

const char* kWithServer = R"({
  "name": "services/server",
  "job": {"command": ["true"]},
  "dates": ["2026-11-01"],
  "hold_points": ["after_commit"],
  "services": {"db": {"kind": "postgres"}, "cache": {"kind": "redis", "durability": "fast"}},
  "faults": {"server": {"points": ["after_commit"], "services": ["db", "cache"],
                        "actions": ["kill", "pause"], "probability": 1}},
  "invariants": {"must_hold": ["server_kill_loses_nothing"]}
})";

TEST(ServerFaultReader, AreReadWithTheirDefaults) {
  auto s = ParseScenario(kWithServer, "s.json");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s.value().faults.server, (ServerFaultSpec{{"after_commit"},
                                                      {"db", "cache"},
                                                      {ServerAction::kKill, ServerAction::kPause},
                                                      1.0,
                                                      1000}));
  EXPECT_EQ(s.value().services.at("db").durability, "durable");
  EXPECT_EQ(s.value().services.at("cache").durability, "fast");
}

TEST(ServerFaultReader, AServiceMustBeTheScenarios) {
  nlohmann::json j = nlohmann::json::parse(kWithServer);
  j["faults"]["server"]["services"] = {"db", "queue"};
  EXPECT_THAT(ErrorOf(ParseScenario(j.dump(), "s.json")),
              HasSubstr("faults.server.services[1]: names no service of the scenario: 'queue'"));
}

TEST(ServerFaultReader, AnActionMustBeKillOrPause) {
  nlohmann::json j = nlohmann::json::parse(kWithServer);
  j["faults"]["server"]["actions"] = {"pause", "kil"};
  EXPECT_THAT(ErrorOf(ParseScenario(j.dump(), "s.json")),
              HasSubstr("faults.server.actions[1]: unknown action 'kil' (did you mean 'kill'? "
                        "known: kill, pause)"));
  j["faults"]["server"]["actions"] = {"pause", "pause"};
  EXPECT_THAT(ErrorOf(ParseScenario(j.dump(), "s.json")),
              HasSubstr("faults.server.actions[1]: 'pause' is listed twice"));
}

}  // namespace
}  // namespace killpoint
