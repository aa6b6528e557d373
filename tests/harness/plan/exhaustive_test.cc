// The exhaustive space over every date (plan/exhaustive.h): its order, the plans of its
// elements, and how a --limit spreads its trials over the whole space instead of a prefix.
#include "plan/exhaustive.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <set>

namespace killpoint {
namespace {

Scenario TwoDates() {
  Scenario s;
  s.name = "export/two-dates";
  s.dates = {"2026-11-01", "2026-11-02"};
  s.failpoints = {"before_publish"};
  s.models = {PersistenceModel::kProcess};
  s.syscall_points = true;
  s.faults.pause = {{"before_publish"}, 400, 0.5};
  return s;
}

// The second date's own points (an unlink only a later date makes) are in the space, after
// the first date's, and the pause is tried once, on the first date.
TEST(ExhaustiveTries, CoverEveryDateInTurnThenTheProcessFaults) {
  Scenario s = TwoDates();
  std::vector<DatePoints> by_date = {
      {{{"rename:sent.tmp:sent.json", 1}, {"before_publish", 1}}, {"", ""}},
      {{{"unlink:sent.json", 1}, {"rename:sent.tmp:sent.json", 1}, {"before_publish", 1}},
       {"", "", ""}}};
  std::vector<ExhaustiveTry> space = ExhaustiveTries(s, by_date);
  std::vector<std::string> seen;
  for (const ExhaustiveTry& t : space) {
    seen.push_back(std::to_string(t.date) + " " +
                   (t.fault.kill_point.empty()
                        ? "pause@" + t.fault.pause.point
                        : t.fault.kill_point + "/" + std::string(NameOf(t.fault.when))));
  }
  EXPECT_EQ(seen,
            (std::vector<std::string>{
                "0 rename:sent.tmp:sent.json/before", "0 rename:sent.tmp:sent.json/after",
                "0 before_publish/before", "1 unlink:sent.json/before", "1 unlink:sent.json/after",
                "1 rename:sent.tmp:sent.json/before", "1 rename:sent.tmp:sent.json/after",
                "1 before_publish/before", "0 pause@before_publish"}));
}

// An unseen write is killed after it only, on whichever date it was seen.
TEST(ExhaustiveTries, DropImpossibleMomentsDateByDate) {
  Scenario s = TwoDates();
  s.faults.pause = {};
  std::vector<DatePoints> by_date = {{{{"write:f", 1}}, {""}}, {{{"write:f", 1}}, {"dup2"}}};
  std::vector<ExhaustiveTry> space = ExhaustiveTries(s, by_date);
  ASSERT_EQ(space.size(), 4u);  // before, after, mid on the first date; after on the second
  EXPECT_EQ(space.back().date, 1u);
  EXPECT_EQ(space.back().fault.when, Moment::kAfter);
}

// A kill on the d-th date: the dates before it fault-free, its first attempt dies, nothing
// after it is planned.
TEST(ExhaustivePlan, RunsTheDatesBeforeTheKilledOneFaultFree) {
  Scenario s = TwoDates();
  s.dates.push_back("2026-11-03");
  AttemptFault kill;
  kill.kill_point = "unlink:sent.json";
  kill.when = Moment::kAfter;
  Plan plan = MakeExhaustivePlan(s, 7, 3, {1, kill});
  ASSERT_EQ(plan.runs.size(), 2u);
  EXPECT_EQ(plan.runs[0].biz_date, "2026-11-01");
  EXPECT_TRUE(plan.runs[0].attempts.empty());
  EXPECT_EQ(plan.runs[1].biz_date, "2026-11-02");
  ASSERT_EQ(plan.runs[1].attempts.size(), 1u);
  EXPECT_EQ(plan.runs[1].attempts[0], kill);
  EXPECT_EQ(MakeExhaustivePlan(s, 7, 0, {0, kill}).runs.size(), 1u);
}

TEST(SpreadTrial, IsTheIdentityWithoutALimit) {
  for (int i = 0; i < 10; ++i) EXPECT_EQ(SpreadTrial(i, 10, 10), static_cast<size_t>(i));
}

// The issue's case: 1,000 of 1,640 combinations reach the last part of the space.
TEST(SpreadTrial, ALimitReachesTheEndOfTheSpace) {
  EXPECT_EQ(SpreadTrial(0, 1000, 1640), 0u);
  EXPECT_GE(SpreadTrial(999, 1000, 1640), 1638u);
}

// Distinct, increasing and within the space, and no gap between two tries longer than
// ceil(total / count): no part of the space is left out.
RC_GTEST_PROP(SpreadTrial, TriesDistinctCombinationsEvenlyOverTheWholeSpace, ()) {
  const auto total = *rc::gen::inRange<size_t>(1, 5000);
  const auto count = *rc::gen::inRange<int>(1, static_cast<int>(total) + 1);
  const size_t gap = (total + static_cast<size_t>(count) - 1) / static_cast<size_t>(count);
  size_t last = 0;
  for (int t = 0; t < count; ++t) {
    size_t i = SpreadTrial(t, count, total);
    RC_ASSERT(i < total);
    if (t > 0) {
      RC_ASSERT(i > last);
      RC_ASSERT(i - last <= gap);
    } else {
      RC_ASSERT(i == 0u);
    }
    last = i;
  }
  RC_ASSERT(total - last <= gap);
}

}  // namespace
}  // namespace killpoint
