#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "check_fixture.h"
#include "results/checkers.h"
#include "scenario/vocabulary.h"

namespace killpoint {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(Checkers, ImplementEveryInvariantOfTheVocabulary) {
  EXPECT_EQ(AllCheckers().size(), kInvariantNames.size());
  for (auto name : kInvariantNames) EXPECT_EQ(AllCheckers().count(std::string(name)), 1u) << name;
}

TEST(StateReadable, HoldsWithoutAStateFileAndWithValidJson) {
  CheckFixture f;
  f.scenario().check.state_file = "publish-state.json";
  EXPECT_TRUE(f.Check("state_readable").held);
  f.WriteFile("publish-state.json", R"({"version":1,"dates":{}})");
  EXPECT_TRUE(f.Check("state_readable").held);
}

// A job that keeps no state file (a SQLite job) is not judged by one: check.state_file has no
// default.
TEST(StateReadable, ReadsNoStateFileUnlessTheScenarioNamesOne) {
  CheckFixture f;
  f.WriteFile("publish-state.json", "not json");
  EXPECT_TRUE(f.Check("state_readable").held) << f.Check("state_readable");
  f.scenario().check.state_file = "publish-state.json";
  EXPECT_FALSE(f.Check("state_readable").held);
}

// docs/scenarios.md promises \xNN for control characters: a file of zeros (a create kept, its
// data lost) must not read as spaces.
TEST(StateReadable, PrintsNulBytesAsEscapes) {
  CheckFixture f;
  f.scenario().check.state_file = "publish-state.json";
  f.WriteFile("publish-state.json", std::string(4, '\0') + "\n");
  Verdict v = f.Check("state_readable");
  EXPECT_FALSE(v.held);
  EXPECT_THAT(v.explanation, HasSubstr("its 5 bytes are '\\x00\\x00\\x00\\x00\\x0a'"));
}

TEST(StateReadable, ShowsTheTruncatedBytes) {
  CheckFixture f;
  f.scenario().check.state_file = "publish-state.json";
  f.WriteFile("publish-state.json", R"({"version":1,"da)");
  Verdict v = f.Check("state_readable");
  EXPECT_FALSE(v.held);
  EXPECT_THAT(v.explanation, HasSubstr("publish-state.json is not a JSON object"));
  EXPECT_THAT(v.explanation, HasSubstr("its 16 bytes are '{\"version\":1,\"da'"));
}

TEST(StateReadable, ChecksTheDatabaseToo) {
  CheckFixture f;
  f.WriteFile("settle.db", std::string(4096, 'x'));
  Verdict v = f.Check("state_readable");
  EXPECT_FALSE(v.held);
  EXPECT_THAT(v.explanation, HasSubstr("settle.db"));
}

// Issue 33: a database whose index lost 2,000 rows fails integrity_check on every row; the
// explanation names the first problems, one line, cut like any other (600 bytes).
TEST(StateReadable, CutsAnIntegrityCheckOfManyProblems) {
  CheckFixture f;
  {
    SQLite::Database db((f.dir() / "settle.db").string(),
                        SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("CREATE TABLE t(a TEXT, b TEXT); CREATE INDEX i ON t(a)");
    SQLite::Transaction tx(db);
    for (int i = 0; i < 2000; ++i)
      db.exec("INSERT INTO t VALUES ('k" + std::to_string(i) + "', 'x')");
    tx.commit();
    db.exec("PRAGMA writable_schema=ON");
    db.exec("UPDATE sqlite_master SET sql = 'CREATE INDEX i ON t(b)' WHERE name = 'i'");
  }
  Verdict v = f.Check("state_readable");
  EXPECT_FALSE(v.held);
  EXPECT_THAT(v.explanation, HasSubstr("settle.db fails PRAGMA integrity_check: row 1 missing "
                                       "from index i | row 2 missing from index i | "));
  EXPECT_LE(v.explanation.size(), 603u);
  EXPECT_EQ(v.explanation.find('\n'), std::string::npos);
}

TEST(Converges, NeedsTheLastAttemptOfEveryDateToSucceed) {
  CheckFixture f;
  f.Exit("2026-11-01", 137);
  f.Exit("2026-11-01", 0);
  f.Exit("2026-11-02", 0);
  EXPECT_TRUE(f.Check("converges").held);
  f.Exit("2026-11-02", 3, "state file is unreadable");
  Verdict v = f.Check("converges");
  EXPECT_FALSE(v.held);
  EXPECT_THAT(v.explanation, HasSubstr("2026-11-02 did not succeed"));
  EXPECT_THAT(
      v.explanation,
      HasSubstr("after 2 attempts the last exited with code 3 (stderr: state file is unreadable)"));
}

TEST(Converges, QuotesATracebackByItsEndWhereTheExceptionIs) {
  CheckFixture f;
  std::string traceback = "Traceback (most recent call last):\n";
  for (int i = 0; i < 12; ++i)
    traceback += "  File \"/srv/jobs/payout.py\", line " + std::to_string(i) + ", in main\n";
  traceback += "sqlite3.OperationalError: database disk image is malformed\n";
  f.Exit("2026-11-01", 0);
  f.Exit("2026-11-02", 1, traceback);
  Verdict v = f.Check("converges");
  EXPECT_FALSE(v.held);
  EXPECT_THAT(v.explanation,
              HasSubstr("sqlite3.OperationalError: database disk image is malformed)"));
  EXPECT_THAT(v.explanation, HasSubstr("(stderr: ...  File "));  // cut at a line's start
  EXPECT_THAT(v.explanation, Not(HasSubstr("Traceback")));
}

TEST(Converges, CatchesADateThatNeverRan) {
  CheckFixture f;
  f.Exit("2026-11-01", 0);
  EXPECT_THAT(f.Check("converges").explanation, HasSubstr("2026-11-02 did not succeed"));
}

}  // namespace
}  // namespace killpoint
