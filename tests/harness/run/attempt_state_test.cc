#include "run/attempt_state.h"

#include <gtest/gtest.h>

#include <string>

#include "history/event_registry.h"
#include "plan/crash_point.h"

namespace killpoint {
namespace {

// A process that is never started: the state only asks it to die.
class FakeProcess : public RunningProcess {
 public:
  int pid() const override { return 1; }
  const std::string& tag() const override { return tag_; }
  void KillGroup() override { ++kills; }
  void SignalGroup(int) override {}
  bool WaitForExit(std::chrono::milliseconds) override { return true; }
  ExitStatus Wait(std::chrono::milliseconds) override { return {}; }
  int kills = 0;

 private:
  std::string tag_ = "fake";
};

struct Attempt {
  explicit Attempt(AttemptFault fault = {}) : state(&history, nullptr) {
    state.Arm(fault, false);
    state.Attach(&process);
  }
  HitAnswer Hit(const std::string& name, bool seen = false) {
    FailpointHit hit;
    hit.name = name;
    hit.seen = seen;
    return state.OnHit(hit);
  }
  // A write's HIT, with its size and (v1.7) file offset, and its DONE with the bytes written.
  HitAnswer Write(const std::string& name, int64_t bytes, int64_t offset) {
    FailpointHit hit;
    hit.name = name;
    hit.bytes = bytes;
    hit.offset = offset;
    return state.OnHit(hit);
  }
  HitAnswer Done(const std::string& name, int64_t written) {
    FailpointHit hit;
    hit.name = name;
    hit.done = true;
    hit.bytes = written;
    return state.OnHit(hit);
  }
  std::vector<Event> Of(const char* type) {
    state.Finish();
    return OfType(history.Events(), type);
  }
  History history;
  FakeProcess process;
  AttemptState state;
};

std::string Name(int i) { return "p" + std::to_string(i); }

TEST(AttemptStateCaps, KeepsTheFirstNamesAndCountsTheRest) {
  Attempt a;
  for (int i = 0; i < static_cast<int>(kMaxPointNames) + 500; ++i) a.Hit(Name(i));
  a.Hit(Name(0));  // a name it kept goes on being recorded
  auto events = a.history.Events();
  EXPECT_EQ(OfType(events, event::Failpoint::kType).size(), kMaxPointNames + 1);
  auto dropped = a.Of(event::PointsDropped::kType);
  ASSERT_EQ(dropped.size(), 1u);
  EXPECT_EQ(dropped[0].data["hits"], 500);
  EXPECT_EQ(dropped[0].data["example"], Name(static_cast<int>(kMaxPointNames)));
}

TEST(AttemptStateCaps, KeepsTheFirstEventsOfANameHitInALoop) {
  Attempt a;
  for (int i = 0; i < kMaxPointEvents + 7; ++i) a.Hit("step");
  EXPECT_EQ(OfType(a.history.Events(), event::Failpoint::kType).size(),
            static_cast<size_t>(kMaxPointEvents));
  auto dropped = a.Of(event::PointsDropped::kType);
  ASSERT_EQ(dropped.size(), 1u);
  EXPECT_EQ(dropped[0].data["hits"], 7);
}

TEST(AttemptStateCaps, CountsPointsPassedOneWayUnderTheSameCap) {
  Attempt a;
  for (int i = 0; i < static_cast<int>(kMaxPointNames) + 3; ++i) a.Hit(Name(i), true);
  auto passed = a.Of(event::PointsPassed::kType);
  ASSERT_EQ(passed.size(), 1u);
  EXPECT_EQ(passed[0].data["points"].size(), kMaxPointNames);
  EXPECT_EQ(OfType(a.history.Events(), event::PointsDropped::kType).at(0).data["hits"], 3);
}

// The caps change what the history shows, never what the trial does: a planned kill, by name
// or by pattern, beyond every cap still fires and is recorded.
TEST(AttemptStateCaps, APlannedKillBeyondTheCapsStillFires) {
  for (const char* point : {"late", "lat*"}) {
    AttemptFault fault;
    fault.kill_point = point;
    fault.occurrence = 2;
    Attempt a(fault);
    for (int i = 0; i < kMaxPointEvents + 5; ++i) a.Hit(Name(i % 1500));
    EXPECT_EQ(a.Hit("late").kind, HitAnswer::kContinue) << point;
    EXPECT_EQ(a.Hit("late").kind, HitAnswer::kKilled) << point;
    EXPECT_EQ(a.process.kills, 1) << point;
    auto kills = a.Of(event::Kill::kType);
    ASSERT_EQ(kills.size(), 1u) << point;
    EXPECT_EQ(kills[0].data["point"], "late");
    EXPECT_EQ(kills[0].data["hit"], 2);
  }
}

TEST(AttemptStateCaps, AnOrdinaryAttemptDropsNothing) {
  Attempt a;
  for (int i = 0; i < 50; ++i) a.Hit(Name(i % 5));
  EXPECT_TRUE(a.Of(event::PointsDropped::kType).empty());
}

// Command points (docs/services.md, "Command points"): a planned kill before the command, or
// after its answer; a pause held in the proxy by its ticket; nothing asked outside an attempt
// or of a command the fault does not name.
TEST(AttemptStateCommands, KillsBeforeACommandOrAfterItsAnswer) {
  AttemptFault before;
  before.kill_point = "net:db:INSERT";
  Attempt a(before);
  EXPECT_EQ(a.state.OnNetCommand("net:db:SELECT", false, 1, false), CommandStep::kForward);
  EXPECT_EQ(a.state.OnNetCommand("net:db:INSERT", false, 2, false), CommandStep::kKilled);
  EXPECT_EQ(a.process.kills, 1);

  AttemptFault after = before;
  after.when = Moment::kAfter;
  Attempt b(after);
  EXPECT_EQ(b.state.OnNetCommand("net:db:INSERT", false, 1, false), CommandStep::kAskAfter);
  EXPECT_EQ(b.process.kills, 0);
  EXPECT_EQ(b.state.OnNetCommand("net:db:INSERT", true, 0, false), CommandStep::kKilled);
  EXPECT_EQ(b.process.kills, 1);
  auto kills = b.Of(event::Kill::kType);
  ASSERT_EQ(kills.size(), 1u);
  EXPECT_EQ(kills[0].data["when"], "after");
  EXPECT_EQ(kills[0].data["point"], "net:db:INSERT");
}

TEST(AttemptStateCommands, RecordsOnlyWhatTheFaultNamesUnlessAskedForAll) {
  Attempt a;
  EXPECT_EQ(a.state.OnNetCommand("net:db:SELECT", false, 1, false), CommandStep::kForward);
  EXPECT_TRUE(OfType(a.history.Events(), event::Failpoint::kType).empty());
  EXPECT_EQ(a.state.OnNetCommand("net:db:SELECT", false, 2, true), CommandStep::kForward);
  EXPECT_EQ(OfType(a.history.Events(), event::Failpoint::kType).size(), 1u);  // discovery's
  a.state.Finish();
  EXPECT_EQ(a.state.OnNetCommand("net:db:SELECT", false, 3, true), CommandStep::kForward);
  EXPECT_EQ(OfType(a.history.Events(), event::Failpoint::kType).size(), 1u);  // no attempt: none
}

TEST(AttemptStateCommands, APausedCommandIsHeldByItsTicket) {
  AttemptFault pause;
  pause.pause = {"net:cache:GET", 100};
  Attempt a(pause);
  EXPECT_EQ(a.state.OnNetCommand("net:cache:GET", false, 42, false), CommandStep::kHold);
  auto hold = a.state.NextHold();
  ASSERT_TRUE(hold);
  EXPECT_EQ(hold->hit.connection, 42u);
  EXPECT_TRUE(hold->pause);
  EXPECT_EQ(StepOf(a.state.Release(*hold)), CommandStep::kForward);
}

AttemptFault MidKill(PersistenceModel model) {
  AttemptFault fault;
  fault.kill_point = "write:data.bin";
  fault.when = Moment::kMid;
  fault.model = model;
  return fault;
}

// Under process a write is cut only at a page boundary of the file (run/mid_cut.h): 10,000
// bytes at offset 100 keep 3,996, up to 4096, and the kill event says so.
TEST(AttemptStateMidKill, UnderProcessCutsAWriteAtAPageBoundary) {
  Attempt a(MidKill(PersistenceModel::kProcess));
  HitAnswer answer = a.Write("write:data.bin", 10'000, 100);
  EXPECT_EQ(answer.kind, HitAnswer::kPartial);
  EXPECT_EQ(answer.bytes, 3996);
  EXPECT_EQ(a.process.kills, 0);  // the job writes the prefix first
  EXPECT_EQ(a.Done("write:data.bin", 3996).kind, HitAnswer::kKilled);
  EXPECT_EQ(a.process.kills, 1);
  auto kills = a.Of(event::Kill::kType);
  ASSERT_EQ(kills.size(), 1u);
  EXPECT_EQ(kills[0].data, (nlohmann::json{{"point", "write:data.bin"},
                                           {"hit", 1},
                                           {"when", "mid"},
                                           {"model", "process"},
                                           {"bytes", 10'000},
                                           {"offset", 100},
                                           {"kept", 3996}}));
}

// A write within one page cannot be cut by a kill: it falls before the write, and the history
// says that the plan's mid could not happen, and why.
TEST(AttemptStateMidKill, UnderProcessAWriteWithinOnePageIsKilledBefore) {
  Attempt a(MidKill(PersistenceModel::kProcess));
  EXPECT_EQ(a.Write("write:data.bin", 118, 0).kind, HitAnswer::kKilled);
  EXPECT_EQ(a.process.kills, 1);
  auto kills = a.Of(event::Kill::kType);
  ASSERT_EQ(kills.size(), 1u);
  EXPECT_EQ(kills[0].data, (nlohmann::json{{"point", "write:data.bin"},
                                           {"hit", 1},
                                           {"when", "before"},
                                           {"model", "process"},
                                           {"bytes", 118},
                                           {"offset", 0},
                                           {"planned", "mid"},
                                           {"uncut", "one_page"}}));
}

// An interception older than v1.7 sends no offset: no cut pretends to be page-aligned.
TEST(AttemptStateMidKill, UnderProcessAWriteOfUnknownOffsetIsKilledBefore) {
  Attempt a(MidKill(PersistenceModel::kProcess));
  EXPECT_EQ(a.Write("write:data.bin", 10'000, -1).kind, HitAnswer::kKilled);
  auto kills = a.Of(event::Kill::kType);
  ASSERT_EQ(kills.size(), 1u);
  EXPECT_EQ(kills[0].data["when"], "before");
  EXPECT_EQ(kills[0].data["uncut"], "no_offset");
  EXPECT_FALSE(kills[0].data.contains("offset"));
}

TEST(AttemptStateMidKill, AOneByteWriteHasNoMiddleUnderAnyModel) {
  for (PersistenceModel m : {PersistenceModel::kProcess, PersistenceModel::kTorn}) {
    Attempt a(MidKill(m));
    EXPECT_EQ(a.Write("write:data.bin", 1, 4095).kind, HitAnswer::kKilled) << NameOf(m);
    auto kills = a.Of(event::Kill::kType);
    ASSERT_EQ(kills.size(), 1u);
    EXPECT_EQ(kills[0].data["when"], "before") << NameOf(m);
    EXPECT_EQ(kills[0].data["uncut"], "too_small") << NameOf(m);
  }
}

// torn simulates a disk, which may keep any prefix: the cut stays in the middle.
TEST(AttemptStateMidKill, UnderTornCutsAWriteInItsMiddle) {
  Attempt a(MidKill(PersistenceModel::kTorn));
  HitAnswer answer = a.Write("write:data.bin", 10'000, 100);
  EXPECT_EQ(answer.kind, HitAnswer::kPartial);
  EXPECT_EQ(answer.bytes, 5000);
  EXPECT_EQ(a.Done("write:data.bin", 5000).kind, HitAnswer::kKilled);
  auto kills = a.Of(event::Kill::kType);
  ASSERT_EQ(kills.size(), 1u);
  EXPECT_EQ(kills[0].data["when"], "mid");
  EXPECT_EQ(kills[0].data["kept"], 5000);
}

// The kill event keeps what DONE says reached the file, not what was asked.
TEST(AttemptStateMidKill, RecordsTheBytesThatReachedTheFile) {
  Attempt a(MidKill(PersistenceModel::kProcess));
  ASSERT_EQ(a.Write("write:data.bin", 10'000, 100).bytes, 3996);
  EXPECT_EQ(a.Done("write:data.bin", 1000).kind, HitAnswer::kKilled);
  EXPECT_EQ(a.Of(event::Kill::kType).at(0).data["kept"], 1000);
  Attempt failed(MidKill(PersistenceModel::kProcess));
  ASSERT_EQ(failed.Write("write:data.bin", 10'000, 100).bytes, 3996);
  EXPECT_EQ(failed.Done("write:data.bin", 0).kind, HitAnswer::kKilled);
  auto kills = failed.Of(event::Kill::kType);
  EXPECT_EQ(kills.at(0).data["when"], "before");
  EXPECT_EQ(kills.at(0).data["uncut"], "failed");
}

// A kill after a write is unchanged: the write is whole, and the event carries no cut.
TEST(AttemptStateMidKill, AKillAfterAWriteIsNoCut) {
  AttemptFault fault = MidKill(PersistenceModel::kProcess);
  fault.when = Moment::kAfter;
  Attempt a(fault);
  EXPECT_EQ(a.Write("write:data.bin", 10'000, 100).kind, HitAnswer::kAfter);
  EXPECT_EQ(a.Done("write:data.bin", 10'000).kind, HitAnswer::kKilled);
  auto kills = a.Of(event::Kill::kType);
  ASSERT_EQ(kills.size(), 1u);
  EXPECT_EQ(kills[0].data,
            (nlohmann::json{
                {"point", "write:data.bin"}, {"hit", 1}, {"when", "after"}, {"model", "process"}}));
}

}  // namespace
}  // namespace killpoint
