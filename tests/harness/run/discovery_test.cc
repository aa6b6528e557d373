#include "run/discovery.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace killpoint {
namespace {

AttemptFault Kill(const std::string& point, int occurrence, Moment when) {
  AttemptFault f;
  f.kill_point = point;
  f.occurrence = occurrence;
  f.when = when;
  f.model = PersistenceModel::kPower;
  return f;
}

// An unseen write (docs/syscall-shim.md) was done before the shim noticed it: --exhaustive
// kills after it only, and leaves every other point's moments, the same name's seen hits too.
TEST(Discovery, AnUnseenWriteIsKilledAfterItOnly) {
  std::vector<CrashPoint> points = {{"write:f", 1}, {"write:f", 2}, {"close:f", 1}};
  std::vector<std::string> unseen = {"", "dup2", ""};
  std::vector<AttemptFault> space;
  for (const CrashPoint& p : points) {
    for (Moment when : KillMoments(p.name)) space.push_back(Kill(p.name, p.occurrence, when));
  }
  ASSERT_EQ(space.size(), 8u);
  DropImpossibleMoments(space, points, unseen);
  std::vector<std::string> left;
  for (const AttemptFault& f : space)
    left.push_back(f.kill_point + "#" + std::to_string(f.occurrence) + " " +
                   std::string(NameOf(f.when)));
  EXPECT_THAT(left,
              ::testing::ElementsAre("write:f#1 before", "write:f#1 after", "write:f#1 mid",
                                     "write:f#2 after", "close:f#1 before", "close:f#1 after"));
  EXPECT_THAT(KillMoments("write:f", "close"), ::testing::ElementsAre(Moment::kAfter));
}

// Issue 34: `failpoints: ["*"]` on a scenario without the shim planned kills at syscall points
// (discovery always loads the shim), which its trials never pass: every such trial was "not
// exercised". They are left out; with the shim they stay.
TEST(Discovery, ATrialWithoutTheShimIsNeverPlannedAtASyscallPoint) {
  std::vector<CrashPoint> points = {{"open:python-job.done", 1},
                                    {"py_before_mark", 1},
                                    {"write:python-job.done", 1},
                                    {"downstream:/publish:before_commit", 1}};
  Scenario s;
  s.failpoints = {"*"};
  EXPECT_EQ(
      KillablePoints(s, points),
      (std::vector<CrashPoint>{{"py_before_mark", 1}, {"downstream:/publish:before_commit", 1}}));
  s.syscall_points = true;
  EXPECT_EQ(KillablePoints(s, points), points);
  s.syscall_points = false;
  s.models = {PersistenceModel::kProcess, PersistenceModel::kPower};  // power loads the shim
  EXPECT_EQ(KillablePoints(s, points), points);
}

}  // namespace
}  // namespace killpoint
