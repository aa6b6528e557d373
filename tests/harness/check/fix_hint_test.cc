#include "check/fix_hint.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace killpoint {
namespace {

using ::testing::HasSubstr;

const std::string kHintDay = "2026-11-01";
const CheckParams kHintCheck = {"ledger.db",
                                "state.json"};  // the job's state: what a hint may blame

std::string Hint(const std::string& invariant, const std::vector<Event>& events,
                 const CheckParams& check = kHintCheck) {
  return FixHint(invariant, events, check);
}

Event HintEv(std::string type, int attempt, nlohmann::json data) {
  static int64_t seq = 0;
  return {seq++, 0, std::move(type), kHintDay, 1, attempt, std::move(data)};
}

Event HintPublish(int attempt) {
  return HintEv("publish", attempt, {{"biz_date", kHintDay}, {"committed", true}, {"key", "k"}});
}
Event HintKill(int attempt, const std::string& point, const std::string& model = "process") {
  return HintEv("kill", attempt, {{"point", point}, {"when", "before"}, {"model", model}});
}
Event HintExit(int attempt, int code) {
  return HintEv("exit", attempt, {{"code", code}, {"killed_by_harness", code == 137}});
}
Event HintRollback(int attempt, const std::string& change) {
  return HintEv("rollback", attempt, {{"model", "power"}, {"changes", {change}}});
}

TEST(FixHint, ARenameWhoseFolderWasNeverFsyncedNamesTheRenameAndTheSaveRecipes) {
  std::vector<Event> events = {
      HintEv("failpoint", 1, {{"point", "rename:state.json.tmp:state.json"}}),
      HintPublish(1),
      HintKill(1, "after_publish", "power"),
      HintExit(1, 137),
      HintRollback(1,
                   "state.json: its name was never made durable (no fsync of its directory), gone"),
      HintPublish(2),
      HintExit(2, 0)};
  std::string hint = Hint("no_double_publish", events);
  EXPECT_THAT(hint, HasSubstr("the rename of state.json.tmp to state.json reached the disk, but "
                              "its folder was never fsync'ed"));
  EXPECT_THAT(hint, HasSubstr("(power model) lost state.json"));
  EXPECT_THAT(hint, HasSubstr("docs/persistence-models.md, \"Common save recipes"));
  // Without the syscall point, the file is still named.
  events.erase(events.begin());
  EXPECT_THAT(Hint("no_double_publish", events),
              HasSubstr("state.json was created or renamed into place, but its folder"));
}

TEST(FixHint, WritesNeverFsyncedBeforeTheRename) {
  std::vector<Event> events = {
      HintEv("failpoint", 1, {{"point", "write:state.json.tmp"}}),
      HintEv("failpoint", 1, {{"point", "rename:state.json.tmp:state.json"}}),
      HintKill(1, "after_rename", "power"), HintExit(1, 137),
      HintRollback(1, "state.json: 40 bytes before the crash, 0 after (un-synced writes lost)")};
  std::string hint = Hint("state_readable", events);
  EXPECT_THAT(hint, HasSubstr("undid writes to state.json that were never made durable (40 bytes "
                              "before the crash, 0 after (un-synced writes lost))"));
  EXPECT_THAT(hint, HasSubstr("fsync the new file before renaming it into place"));
  // Without file operations in the history, how the job saved is not known: no recipe assumed.
  events.erase(events.begin(), events.begin() + 2);
  hint = Hint("state_readable", events);
  EXPECT_THAT(hint, HasSubstr("make them durable (fsync) before the job acts on them"));
  EXPECT_THAT(hint, ::testing::Not(HasSubstr("fsync the new file before renaming it into place")));
}

// Stores through a mapping (or writes in place) never synced: the fix is msync(MS_SYNC) or
// fsync, not "before renaming" a file the job never renamed (issue 33, the foreign mmap job).
TEST(FixHint, WritesMadeInPlaceNeverSynced) {
  std::vector<Event> events = {
      HintEv("failpoint", 1, {{"point", "open:state.json"}}),
      HintEv("failpoint", 1, {{"point", "close:state.json"}}),
      HintKill(1, "downstream:/publish:after_commit", "power"),
      HintExit(1, 137),
      HintRollback(1,
                   "state.json: 4096 bytes before the crash, 4096 after (un-synced writes "
                   "lost)"),
      HintPublish(1),
      HintPublish(2),
      HintExit(2, 0)};
  std::string hint = Hint("no_double_publish", events);
  EXPECT_THAT(hint, HasSubstr("that the job made in place and never made durable"));
  EXPECT_THAT(hint, HasSubstr("msync(MS_SYNC) for a mapping"));
  EXPECT_THAT(hint, ::testing::Not(HasSubstr("before renaming it into place")));
}

// The first date's save was rolled back and its retry delivered it once, as it should; the
// second date was lost because the job marks it done before delivering. The hint names the
// second date's cause, never the first date's harmless rollback (issue 33: a correct O_SYNC
// job was told its folder was never fsync'ed).
TEST(FixHint, ARollbackOnAnotherDateIsNoCause) {
  auto on = [](Event e, const std::string& date) {
    e.biz_date = date;
    if (e.data.contains("biz_date")) e.data["biz_date"] = date;
    return e;
  };
  std::vector<Event> events = {
      on(HintEv("failpoint", 1, {{"point", "rename:state.json.tmp:state.json"}}), "2026-11-01"),
      on(HintKill(1, "rename:state.json.tmp:state.json", "ext4-ordered"), "2026-11-01"),
      on(HintExit(1, 137), "2026-11-01"),
      on(HintRollback(1,
                      "state.json: its name was never committed to the journal (no fsync "
                      "since it was created or renamed), gone"),
         "2026-11-01"),
      on(HintPublish(2), "2026-11-01"),
      on(HintExit(2, 0), "2026-11-01"),
      on(HintKill(1, "close:.", "ext4-ordered"), "2026-11-02"),
      on(HintExit(1, 137), "2026-11-02"),
      on(HintExit(2, 0), "2026-11-02")};
  std::string hint = Hint("no_loss", events);
  EXPECT_THAT(hint, HasSubstr("attempt 1 of 2026-11-02 was killed at close:. before delivering"));
  EXPECT_THAT(hint, ::testing::Not(HasSubstr("folder was never fsync'ed")));
  // The same date: attempt 1's save was rolled back and redone by attempt 2, whose kill after
  // the save made the loss; attempt 3 exited 0. The hint names attempt 2, and no rollback.
  std::vector<Event> same = {
      HintKill(1, "fsync:.", "torn"),
      HintExit(1, 137),
      HintRollback(1,
                   "state.json: its name was never made durable (no fsync of its directory), "
                   "gone"),
      HintEv("failpoint", 2, {{"point", "rename:state.json.tmp:state.json"}}),
      HintKill(2, "close:.", "torn"),
      HintExit(2, 137),
      HintExit(3, 0)};
  hint = Hint("no_loss", same);
  EXPECT_THAT(hint, HasSubstr("attempt 2 of 2026-11-01 was killed at close:. before delivering "
                              "it, and attempt 3 of 2026-11-01 exited 0"));
  // A state check still sees every date's rollback.
  EXPECT_THAT(Hint("state_readable", events), HasSubstr("folder was never fsync'ed"));
}

TEST(FixHint, AStateFileTornInPlace) {
  std::vector<Event> events = {HintKill(1, "mid_write"), HintExit(1, 137), HintExit(2, 3)};
  EXPECT_THAT(Hint("converges", events),
              HasSubstr("killed at mid_write while writing its state in place"));
  EXPECT_THAT(Hint("state_readable", {HintKill(1, "write:state.json"), HintExit(1, 137)}),
              HasSubstr("write the new state to a temporary file"));
  // A converges violation with no attempt of that date failing after the kill is something else.
  EXPECT_EQ(Hint("converges", {HintKill(1, "mid_write"), HintExit(1, 137), HintExit(2, 0)}), "");
  Event other_date = HintExit(1, 1);
  other_date.biz_date = "2026-11-02";
  EXPECT_EQ(Hint("converges", {HintKill(1, "mid_write"), HintExit(1, 137), other_date}), "");
}

TEST(FixHint, PublishedAgainAfterAKillBetweenDeliveryAndRecord) {
  std::vector<Event> events = {HintPublish(1), HintKill(1, "after_publish"), HintExit(1, 137),
                               HintPublish(2), HintExit(2, 0)};
  std::string hint = Hint("no_double_publish", events);
  EXPECT_THAT(hint, HasSubstr("attempt 1 of 2026-11-01 delivered it and was killed at "
                              "after_publish before it recorded the delivery; attempt 2 of "
                              "2026-11-01 delivered it again without asking the downstream"));
  EXPECT_THAT(hint, HasSubstr("Side effects: the order decides the failure"));
  EXPECT_EQ(Hint("one_delivery_per_key", events), hint);
  // A crash that undid a file the job keeps, in a scenario that names no state file (an LMDB
  // store), may have undone its record: "before it recorded" is no longer what the history
  // shows. A temporary file or SQLite's -shm holds no record.
  std::vector<Event> rolled = events;
  rolled.insert(rolled.begin() + 3,
                HintRollback(1,
                             "sent.lmdb/data.mdb: 8192 bytes before the crash, 8192 after "
                             "(un-synced writes lost)"));
  const CheckParams kNoStateFile = {"settle.db", ""};
  EXPECT_EQ(Hint("no_double_publish", rolled, kNoStateFile), "");
  rolled[3] = HintRollback(1,
                           "<tmp1>: its name was never made durable (no fsync of its "
                           "directory), gone");
  EXPECT_EQ(Hint("no_double_publish", rolled, kNoStateFile), hint);
  // The retry asked the downstream first: another cause, no hint.
  events.insert(events.begin() + 3, HintEv("query", 2, {{"key", "k"}, {"count", 0}}));
  EXPECT_EQ(Hint("no_double_publish", events), "");
}

TEST(FixHint, MarkedDoneBeforeDelivering) {
  std::vector<Event> events = {HintKill(1, "before_publish"), HintExit(1, 137), HintExit(2, 0)};
  std::string hint = Hint("no_loss", events);
  EXPECT_THAT(hint, HasSubstr("attempt 1 of 2026-11-01 was killed at before_publish before "
                              "delivering it, and attempt 2 of 2026-11-01 exited 0 without "
                              "delivering it: the job recorded the date as done"));
  events.insert(events.begin() + 2, HintEv("alert", 2, {{"key", "k"}, {"reason", "intent"}}));
  EXPECT_THAT(Hint("no_loss", events), HasSubstr("found the intent and alerted instead of "
                                                 "asking the downstream"));
  // A downstream that failed the first attempt, with no kill: the same cause.
  EXPECT_THAT(Hint("no_loss", {HintExit(1, 1), HintExit(2, 0)}),
              HasSubstr("attempt 1 of 2026-11-01 exited with code 1 before delivering it"));
  // Delivered in the end: not lost, no hint.
  EXPECT_EQ(Hint("no_silent_loss",
                 {HintKill(1, "before_publish"), HintExit(1, 137), HintPublish(2), HintExit(2, 0)}),
            "");
}

TEST(FixHint, NoRuleNoHint) {
  std::vector<Event> events = {HintPublish(1), HintKill(1, "after_publish"), HintExit(1, 137),
                               HintPublish(2)};
  EXPECT_EQ(Hint("one_row_per_date", events), "");
  EXPECT_EQ(Hint("no_double_publish", {HintPublish(1), HintPublish(1)}), "");
}

// Issue 33's false hints. A double publish by notify-before-mark, where the power cut also lost
// an export the retry never reads: the cause is the order, not the export's folder.
TEST(FixHint, ALostFileTheRetryDoesNotReadIsNoCause) {
  std::vector<Event> events = {
      HintEv("failpoint", 1, {{"point", "rename:export.tmp:export.csv"}}),
      HintPublish(1),
      HintKill(1, "after_publish", "power"),
      HintExit(1, 137),
      HintRollback(1,
                   "export.csv: its name was never made durable (no fsync of its directory), gone"),
      HintPublish(2),
      HintExit(2, 0)};
  std::string hint = Hint("no_double_publish", events);
  EXPECT_THAT(hint, HasSubstr("delivered it again without asking the downstream"));
  EXPECT_THAT(hint, ::testing::Not(HasSubstr("export.csv")));
  // A temporary file lost before its rename, SQLite's -shm, LMDB's lock table: never a cause.
  for (const char* lost :
       {"<tmp1>: its name was never made durable (no fsync of its directory), gone",
        "ledger.db-shm: 32768 bytes before the crash, 0 after (un-synced writes lost)",
        "lock.mdb: 8192 bytes before the crash, 0 after (un-synced writes lost)"}) {
    EXPECT_EQ(Hint("state_readable",
                   {HintKill(1, "after_commit", "power"), HintExit(1, 137), HintRollback(1, lost)}),
              "")
        << lost;
  }
  // Without a state named in the scenario, no loss is blamed.
  EXPECT_EQ(Hint("state_readable",
                 {HintKill(1, "after_rename", "power"), HintExit(1, 137),
                  HintRollback(
                      1, "state.json: 40 bytes before the crash, 0 after (un-synced writes lost)")},
                 CheckParams{"", ""}),
            "");
}

// SQLite in WAL mode with synchronous=NORMAL loses its last commit under power: the WAL was
// cut back. The fix is the synchronous setting, not the rename recipe.
TEST(FixHint, ALostCommitOfTheDatabaseNamesItsSynchronousSetting) {
  std::vector<Event> events = {
      HintKill(1, "after_commit", "power"), HintExit(1, 137),
      HintEv("rollback", 1,
             {{"model", "power"},
              {"changes",
               {"ledger.db-shm: 32768 bytes before the crash, 0 after (un-synced writes lost)",
                "ledger.db-wal: 8272 bytes before the crash, 32 after (un-synced writes lost)"}}})};
  std::string hint = Hint("commits_survive", events);
  EXPECT_THAT(hint, HasSubstr("undid a commit of ledger.db (ledger.db-wal: 8272 bytes"));
  EXPECT_THAT(hint, HasSubstr("the WAL was not synced when the transaction committed"));
  EXPECT_THAT(hint, HasSubstr("PRAGMA synchronous=FULL"));
  EXPECT_THAT(hint, ::testing::Not(HasSubstr("-shm")));
}

// DELETE mode at synchronous=FULL loses a commit when the journal's unlink is undone: telling
// that job to "set synchronous=FULL" would be false; EXTRA syncs the folder after the unlink.
TEST(FixHint, AJournalBackFromTheDeadNamesExtraNotFull) {
  std::vector<Event> events = {
      HintKill(1, "close:ledger.db", "power"), HintExit(1, 137),
      HintRollback(1,
                   "ledger.db-journal: back with 12824 bytes (its removal or replacement was never "
                   "made durable)")};
  std::string hint = Hint("commits_survive", events);
  EXPECT_THAT(hint, HasSubstr("never fsync'ed the folder"));
  EXPECT_THAT(hint, HasSubstr("PRAGMA synchronous=EXTRA"));
  EXPECT_THAT(hint, ::testing::Not(HasSubstr("Set PRAGMA synchronous=FULL")));
  // The database's own writes lost, in DELETE mode at OFF: FULL is the fix.
  events[2] = HintRollback(1,
                           "ledger.db: 12288 bytes before the crash, 12288 after (un-synced "
                           "writes lost)");
  EXPECT_THAT(Hint("commits_survive", events), HasSubstr("at synchronous=OFF it syncs nothing"));
}

// A date the scheduler fired twice has two attempt 1s: the hint tells them apart.
TEST(FixHint, TheSecondRunOfADateIsNamed) {
  Event first = HintPublish(1);
  Event kill = HintKill(1, "after_publish");
  Event exit = HintExit(1, 137);
  for (Event* e : {&first, &kill, &exit}) e->trigger = 1;
  Event again = HintPublish(1);
  again.trigger = 2;
  std::string hint = Hint("no_double_publish", {first, kill, exit, again});
  EXPECT_THAT(hint, HasSubstr("attempt 1 of 2026-11-01 delivered it"));
  EXPECT_THAT(hint, HasSubstr("attempt 1 of 2026-11-01 (its run 2) delivered it again"));
}

// A kill right after open(..., "w") of the state truncated it: the in-place hint.
TEST(FixHint, AKillRightAfterTheStatesTruncatingOpen) {
  Event kill = HintKill(1, "open:state.json");
  kill.data["when"] = "after";
  EXPECT_THAT(Hint("state_readable", {kill, HintExit(1, 137)}),
              HasSubstr("killed after open:state.json while writing its state in place"));
  // The same on another file: not the state, no hint.
  kill.data["point"] = "open:run.log";
  EXPECT_EQ(Hint("state_readable", {kill, HintExit(1, 137)}), "");
}

}  // namespace
}  // namespace killpoint
