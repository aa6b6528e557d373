#include "channel/temp_names.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace killpoint {
namespace {

// The names a sequence of (point, excl) gets.
std::vector<std::string> Names(TempNames& t,
                               const std::vector<std::pair<std::string, bool>>& points) {
  std::vector<std::string> out;
  for (const auto& [point, excl] : points) out.push_back(t.Rename(point, excl));
  return out;
}

TEST(TempNames, MkstempThenReplaceIsNamedByCreationOrder) {
  TempNames t;
  EXPECT_EQ(Names(t, {{"open:tmpk3x9q1ab", true},
                      {"write:tmpk3x9q1ab", false},
                      {"fsync:tmpk3x9q1ab", false},
                      {"close:tmpk3x9q1ab", false},
                      {"rename:tmpk3x9q1ab:state.json", false},
                      {"fsync:.", false},
                      {"write:state.json", false},
                      {"open:sub/tmpZZ", true},
                      {"unlink:sub/tmpZZ", false},
                      {"write:sub/tmpZZ", false}}),
            (std::vector<std::string>{"open:<tmp1>", "write:<tmp1>", "fsync:<tmp1>", "close:<tmp1>",
                                      "rename:<tmp1>:state.json", "fsync:.", "write:state.json",
                                      "open:sub/<tmp2>", "unlink:sub/<tmp2>", "write:sub/tmpZZ"}));
}

TEST(TempNames, TwoRunsWithOtherRandomNamesGetTheSameNames) {
  TempNames a, b;
  auto run = [](TempNames& t, const std::string& x, const std::string& y) {
    return Names(t, {{"open:" + x, true},
                     {"open:" + y, true},
                     {"write:" + y, false},
                     {"rename:" + x + ":" + y, false}});
  };
  std::vector<std::string> first = run(a, "tmp.AbC", "tmp.x:y");  // a ':' in a path, too
  EXPECT_EQ(first, run(b, "tmp.QqQ", "tmp.123"));
  EXPECT_EQ(first, (std::vector<std::string>{"open:<tmp1>", "open:<tmp2>", "write:<tmp2>",
                                             "rename:<tmp1>:<tmp2>"}));
}

// bash queues the one-way report of its redirection's open until it exits, after mv has
// renamed the file away: a late SEEN still gets the alias, a HIT on the same path does not.
TEST(TempNames, LateOneWayReportsKeepTheAliasThatEnded) {
  TempNames t;
  EXPECT_EQ(t.Rename("open:tmp.Ab", true), "open:<tmp1>");
  EXPECT_EQ(t.Rename("rename:tmp.Ab:state", false, true), "rename:<tmp1>:state");
  EXPECT_EQ(t.Rename("open:tmp.Ab", false, true), "open:<tmp1>");
  EXPECT_EQ(t.Rename("open:tmp.Ab", false, false), "open:tmp.Ab");
}

// Go's os.CreateTemp + os.Rename + a deferred os.Remove of the old name, which finds nothing:
// the unlink's name recurs in every run.
TEST(TempNames, ACleanupOfTheOldPathAfterTheRenameKeepsTheAlias) {
  TempNames t;
  EXPECT_EQ(t.Rename("open:.state-1869667141", true), "open:<tmp1>");
  EXPECT_EQ(t.Rename("rename:.state-1869667141:state", false), "rename:<tmp1>:state");
  EXPECT_EQ(t.Rename("unlink:.state-1869667141", false), "unlink:<tmp1>");
  EXPECT_EQ(t.Rename("write:.state-1869667141", false), "write:.state-1869667141");
}

TEST(TempNames, NamedPointsAndPlainFilesKeepTheirNames) {
  TempNames t;
  EXPECT_EQ(t.Rename("before_commit", true), "before_commit");
  EXPECT_EQ(t.Rename("open:state.json", false), "open:state.json");
  EXPECT_EQ(t.Rename("open:new", true), "open:<tmp1>");
  EXPECT_EQ(t.Rename("rename:a:b", false), "rename:a:b");
  EXPECT_EQ(t.Rename("rename:x:new", false), "rename:x:<tmp1>");  // replaced by another file
  EXPECT_EQ(t.Rename("write:new", false), "write:new");
  t.Clear();
  EXPECT_EQ(t.Rename("open:again", true), "open:<tmp1>");  // a new attempt counts from 1
}

// Issue 33: a path's alias stays known after its rename and after the attempt (a rollback is
// reported once the attempt was killed, a stale file of attempt 1 rolled back in attempt 2).
TEST(TempNames, KnowsAnAliasAfterItsRenameAndAcrossAttempts) {
  TempNames names;
  EXPECT_EQ(names.Rename("open:state.k3x9.tmp", true), "open:<tmp1>");
  EXPECT_EQ(names.Known("state.k3x9.tmp"), "<tmp1>");
  names.Rename("rename:state.k3x9.tmp:state.json", false);
  EXPECT_EQ(names.Known("state.k3x9.tmp"), "<tmp1>");
  names.Clear();
  EXPECT_EQ(names.Rename("open:state.q7w2.tmp", true), "open:<tmp1>");
  EXPECT_EQ(names.Known("state.k3x9.tmp"), "<tmp1>");
  EXPECT_EQ(names.Known("state.q7w2.tmp"), "<tmp1>");
  EXPECT_EQ(names.Known("state.json"), "state.json");
}

// cp creates a missing destination with O_EXCL: the state file the scenario names keeps its
// name, in points and in what the models report, while an unnamed exclusive create is still
// a temporary file.
TEST(TempNames, TheScenariosStateFileIsNeverTemporary) {
  TempNames names;
  names.Keep({"sent.json"});
  EXPECT_EQ(Names(names, {{"open:sent.json.tmp", false},
                          {"open:sent.json", true},
                          {"close:sent.json", false},
                          {"open:other.json", true}}),
            (std::vector<std::string>{"open:sent.json.tmp", "open:sent.json", "close:sent.json",
                                      "open:<tmp1>"}));
  names.Clear();
  EXPECT_EQ(names.Known("sent.json"), "sent.json");
  EXPECT_EQ(names.Known("other.json"), "<tmp1>");
}

}  // namespace
}  // namespace killpoint
