#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "check_fixture.h"
#include "history/event_registry.h"
#include "history/outside_write.h"

namespace killpoint {
namespace {

using ::testing::HasSubstr;

void Outside(CheckFixture& f, int attempt, const nlohmann::json& writes) {
  f.history().SetContext({"2026-11-01", 1, attempt});
  f.history().Add(event::OutsideWrites::kType, {{"writes", writes}});
}

TEST(WritesInSandbox, HoldsWithoutAWriteOutside) {
  CheckFixture f;
  f.history().SetContext({"2026-11-01", 1, 1});
  f.history().Add(event::Spawn::kType, {{"pid", 1}});
  EXPECT_TRUE(f.Check("writes_in_sandbox").held);
}

TEST(WritesInSandbox, NamesTheFirstPathItsOpsAndTheAttempt) {
  CheckFixture f;
  Outside(
      f, 2,
      {{{"path", "/var/lib/app/state.json"}, {"kind", "elsewhere"}, {"ops", {"open", "rename"}}},
       {{"path", "/var/lib/app/x"}, {"kind", "elsewhere"}, {"ops", {"unlink"}}}});
  Outside(f, 3, {{{"path", "/tmp/y"}, {"kind", "temp"}, {"ops", {"open"}}}});
  Verdict v = f.Check("writes_in_sandbox");
  EXPECT_FALSE(v.held);
  EXPECT_EQ(v.explanation,
            "attempt 2 of 2026-11-01 wrote /var/lib/app/state.json (open, rename) outside its "
            "sandbox: no persistence "
            "model applied to it, and the next trial sees it (2 more paths in this trial)");
}

TEST(WritesInSandbox, NextToTheSandboxTheLaterAttemptsSeeIt) {
  CheckFixture f;
  Outside(f, 1, {{{"path", "$KILLPOINT_WORKDIR/../x"}, {"kind", "trial"}, {"ops", {"mkdir"}}}});
  EXPECT_THAT(f.Check("writes_in_sandbox").explanation,
              HasSubstr("wrote $KILLPOINT_WORKDIR/../x (mkdir) outside its sandbox: no persistence "
                        "model applied to "
                        "it, and the later attempts of the trial see it"));
}

}  // namespace
}  // namespace killpoint
