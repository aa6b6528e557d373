#include "reports/keep_hints.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

namespace killpoint {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;

fs::path FreshBox(const std::string& name) {
  fs::path box =
      fs::temp_directory_path() / ("kp-keep-hints-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(box);
  fs::create_directories(box / "work");
  return box;
}

// Issue 21: no `sqlite3 .../settle.db .dump` for a job with no such database, no `cat` of a
// state file it never wrote, no `ls` of empty logs.
TEST(KeepHints, NameOnlyWhatTheJobLeft) {
  fs::path box = FreshBox("none");
  std::ofstream(box / "work" / "out.json") << "{}";
  EXPECT_THAT(KeepHints(box, "state.json"), ElementsAre("ls -la " + (box / "work").string()));
  fs::remove_all(box);
}

TEST(KeepHints, EverySqliteDatabaseByItsHeaderAndTheStateFile) {
  fs::path box = FreshBox("some");
  fs::create_directories(box / "logs");
  fs::create_directories(box / "work" / "db");
  std::ofstream(box / "logs" / "a1.err") << "x";
  std::ofstream(box / "work" / "db" / "ledger.sqlite", std::ios::binary)
      << std::string("SQLite format 3\0rest", 20);
  std::ofstream(box / "work" / "settle.db") << "not a database";
  std::ofstream(box / "work" / "state.json") << "{}";
  fs::path work = box / "work";
  EXPECT_THAT(KeepHints(box, "state.json"),
              ElementsAre("ls -la " + work.string(), "ls " + (box / "logs").string(),
                          "sqlite3 " + (work / "db" / "ledger.sqlite").string() + " .dump",
                          "cat " + (work / "state.json").string()));
  fs::remove_all(box);
}

}  // namespace
}  // namespace killpoint
