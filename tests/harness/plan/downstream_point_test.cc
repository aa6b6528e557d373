// Downstream crash points (plan/crash_point.h, docs/scenarios.md): their names, how patterns
// select them, and how the planner and the exhaustive space kill there, like at any other point.
#include <gtest/gtest.h>

#include <set>

#include "plan/crash_point.h"
#include "plan/exhaustive.h"
#include "plan/planner.h"
#include "plan/point_pattern.h"
#include "scenario/net_point.h"

namespace killpoint {
namespace {

const std::string kArrived = "downstream:/publish:before_commit";
const std::string kDelivered = "downstream:/publish:after_commit";
const std::string kReplied = "downstream:/publish:after_answer";

TEST(DownstreamPoint, IsNamedByPathAndMomentAndIsNoSyscallPoint) {
  EXPECT_EQ(DownstreamPoint("/publish", kAfterCommit), kDelivered);
  EXPECT_EQ(DownstreamPoint("/alert", kBeforeCommit), "downstream:/alert:before_commit");
  EXPECT_TRUE(IsDownstreamPoint(kReplied));
  EXPECT_FALSE(IsDownstreamPoint("before_commit"));
  EXPECT_FALSE(IsDownstreamPoint("write:downstream:x"));
  EXPECT_FALSE(IsSyscallPoint(kDelivered));  // no shim needed, no tracker fed
  EXPECT_EQ(SyscallPath(kDelivered), "");
  ASSERT_EQ(KillMoments(kDelivered).size(), 1u);  // the moment is the point: killed at it
  EXPECT_EQ(KillMoments(kDelivered)[0], Moment::kBefore);
  EXPECT_STREQ(PointKind(kDelivered), "downstream");
  EXPECT_STREQ(PointKind("fsync:."), "syscall");
  EXPECT_STREQ(PointKind("before_commit"), "named");
}

// A command to a service (scenario/net_point.h): killed before it goes or after its answer; the
// network faults' own moments (commit, set_nx, connect) are no command points.
TEST(CommandPoint, IsKindNetWithABeforeAndAnAfter) {
  EXPECT_EQ(NetCommandPoint("db", "INSERT"), "net:db:INSERT");
  EXPECT_TRUE(IsNetCommandPoint("net:db:INSERT"));
  EXPECT_TRUE(IsNetCommandPoint("net:mq:basic.publish"));
  for (const char* not_one : {"net:db:commit", "net:cache:set_nx", "net:db:connect", "net:db",
                              "net::INSERT", "net:db:", "INSERT"})
    EXPECT_FALSE(IsNetCommandPoint(not_one)) << not_one;
  EXPECT_STREQ(PointKind("net:db:INSERT"), "net");
  ASSERT_EQ(KillMoments("net:db:INSERT").size(), 2u);
  EXPECT_EQ(KillMoments("net:db:INSERT")[1], Moment::kAfter);
  EXPECT_FALSE(IsSyscallPoint("net:db:INSERT"));    // no shim needed, no tracker fed
  EXPECT_TRUE(MatchPoint("*:*", "net:db:INSERT"));  // syscall_points: true plans them too
  EXPECT_TRUE(MatchPoint("net:db:*", "net:db:UPDATE"));
}

TEST(DownstreamPoint, PatternsSelectThemLikeAnyOtherPoint) {
  EXPECT_TRUE(MatchPoint("downstream:*", kDelivered));
  EXPECT_TRUE(MatchPoint("downstream:*:after_commit", kDelivered));
  EXPECT_FALSE(MatchPoint("downstream:*:after_commit", kReplied));
  EXPECT_TRUE(MatchPoint("*", kArrived));
  EXPECT_TRUE(MatchPoint("*:*", kArrived));  // the shim's default: every point with a ':'
  EXPECT_FALSE(MatchPoint("*_commit", kReplied));
  // The shim never sees them: a downstream kill point makes no syscall point wait.
  EXPECT_TRUE(OpsMatching("downstream:*").empty());
  EXPECT_TRUE(OpsMatching(kDelivered).empty());
  std::vector<CrashPoint> discovered = {
      {"open:x", 1}, {kArrived, 1}, {kDelivered, 1}, {kDelivered, 2}};
  EXPECT_EQ(PointsMatching("downstream:*:after_commit", discovered, {}),
            (std::vector<CrashPoint>{{kDelivered, 1}, {kDelivered, 2}}));
}

TEST(DownstreamPoint, DiscoveryPutsEachAnswerRightAfterItsCommit) {
  const std::string kAlertAnswered = "downstream:/alert:after_answer";
  // As recorded: the job's next point came in before the downstream reported the answer.
  std::vector<CrashPoint> raced = {
      {kArrived, 1},  {kDelivered, 1},    {"after_publish", 1},
      {kReplied, 1},  {kArrived, 2},      {kDelivered, 2},
      {kReplied, 2},  {"write:s", 1},     {"downstream:/alert:after_commit", 1},
      {"close:s", 1}, {kAlertAnswered, 1}};
  std::vector<CrashPoint> expected = {
      {kArrived, 1},        {kDelivered, 1}, {kReplied, 1},
      {"after_publish", 1}, {kArrived, 2},   {kDelivered, 2},
      {kReplied, 2},        {"write:s", 1},  {"downstream:/alert:after_commit", 1},
      {kAlertAnswered, 1},  {"close:s", 1}};
  EXPECT_EQ(AnswersAfterTheirCommits(raced), expected);
  EXPECT_EQ(AnswersAfterTheirCommits(expected), expected);
}

Scenario PublishScenario() {
  Scenario s;
  s.name = "publish/downstream";
  s.dates = {"2026-11-01", "2026-11-02"};
  s.failpoints = {kDelivered};
  s.retry.max_attempts = 3;
  s.max_occurrence = 3;
  return s;
}

TEST(DownstreamPoint, ThePlannerKillsThereAtADiscoveredOccurrence) {
  Scenario s = PublishScenario();
  std::vector<CrashPoint> discovered = {
      {kArrived, 1}, {kDelivered, 1}, {kArrived, 2}, {kDelivered, 2}};
  std::set<int> occurrences;
  for (int trial = 0; trial < 40; ++trial) {
    Plan plan = MakePlan(s, 7, trial, discovered);
    const AttemptFault& f = plan.runs.front().attempts.front();
    EXPECT_EQ(f.kill_point, kDelivered);
    EXPECT_EQ(f.when, Moment::kBefore);  // one moment, like a named point
    occurrences.insert(f.occurrence);
  }
  EXPECT_EQ(occurrences, (std::set<int>{1, 2}));  // #2 is the second publish of the attempt
  s.failpoints = {"downstream:*:after_commit"};
  Plan plan = MakePlan(s, 7, 0, discovered);
  EXPECT_EQ(plan.runs.front().attempts.front().kill_point,
            kDelivered);  // the primary kill takes the concrete point
}

TEST(DownstreamPoint, WithoutTheShimTheExhaustiveSpaceLeavesOutSyscallPoints) {
  Scenario s = PublishScenario();  // a downstream point needs no shim: none is loaded
  ASSERT_FALSE(s.UsesShim());
  std::vector<CrashPoint> discovered = {
      {"open:x", 1}, {"before_mark", 1}, {kDelivered, 1}, {"write:x", 1}};
  std::vector<std::string> killed;
  for (const AttemptFault& f : ExhaustiveSpace(s, discovered)) killed.push_back(f.kill_point);
  EXPECT_EQ(killed, (std::vector<std::string>{"before_mark", kDelivered}));
  s.syscall_points = true;
  EXPECT_EQ(ExhaustiveSpace(s, discovered).size(),
            2u + 2u + 3u);  // open before/after, write before/after/mid
}

TEST(DownstreamPoint, TheExhaustiveSpaceKillsAtEachOncePerModel) {
  Scenario s = PublishScenario();
  s.models = {PersistenceModel::kProcess, PersistenceModel::kPower};  // power loads the shim
  std::vector<CrashPoint> discovered = {
      {"rename:a:b", 1}, {kArrived, 1}, {kDelivered, 1}, {kReplied, 1}, {kDelivered, 2}};
  std::vector<std::string> killed;
  for (const AttemptFault& f : ExhaustiveSpace(s, discovered)) {
    killed.push_back(f.kill_point + "#" + std::to_string(f.occurrence) + "/" +
                     std::string(NameOf(f.when)) + "/" + std::string(NameOf(f.model)));
  }
  EXPECT_EQ(killed, (std::vector<std::string>{
                        "rename:a:b#1/before/process", "rename:a:b#1/before/power",
                        "rename:a:b#1/after/process", "rename:a:b#1/after/power",
                        kArrived + "#1/before/process", kArrived + "#1/before/power",
                        kDelivered + "#1/before/process", kDelivered + "#1/before/power",
                        kReplied + "#1/before/process", kReplied + "#1/before/power",
                        kDelivered + "#2/before/process", kDelivered + "#2/before/power"}));
}

}  // namespace
}  // namespace killpoint
