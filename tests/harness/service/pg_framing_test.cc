#include "service/postgres/pg_framing.h"

#include <gtest/gtest.h>

#include <string>

namespace killpoint {
namespace {

std::string Int32(uint32_t v) { return {char(v >> 24), char(v >> 16), char(v >> 8), char(v)}; }
std::string Typed(char type, const std::string& body) {
  return type + Int32(uint32_t(body.size() + 4)) + body;
}
std::string Query(const std::string& sql) { return Typed('Q', sql + '\0'); }
std::string SslRequest() { return Int32(8) + Int32(80877103); }
std::string Startup() {
  std::string body = Int32(196608) + std::string("user\0postgres\0\0", 15);
  return Int32(uint32_t(body.size() + 4)) + body;
}

TEST(PgCommitText, RecognisesCommitAndItsSynonyms) {
  for (const char* sql :
       {"COMMIT", "commit", " Commit ;", "END", "end transaction;", "COMMIT  WORK", "commit\n"}) {
    EXPECT_TRUE(IsPgCommitText(sql)) << sql;
  }
  for (const char* sql :
       {"COMMIT PREPARED 'x'", "BEGIN", "ROLLBACK", "SELECT 'COMMIT'", "", "ENDS", "COMMITTED"}) {
    EXPECT_FALSE(IsPgCommitText(sql)) << sql;
  }
}

TEST(PgFrontendParser, FindsASimpleQueryCommitAfterTheSslRequestAndStartup) {
  std::string stream = SslRequest() + Startup() + Query("BEGIN") +
                       Query("INSERT INTO t VALUES (1)") + Query("COMMIT");
  PgFrontendParser p;
  EXPECT_EQ(p.Feed(stream), std::vector<size_t>{stream.size()});
  EXPECT_FALSE(p.broken());
}

TEST(PgFrontendParser, FindsTheSameCommitFedOneByteAtATime) {
  std::string stream = Startup() + Query("SELECT 1") + Query("commit;") + Query("SELECT 2");
  PgFrontendParser p;
  std::vector<size_t> ends;
  for (size_t i = 0; i < stream.size(); ++i) {
    for (size_t end : p.Feed(stream.substr(i, 1))) ends.push_back(i + end);
  }
  size_t commit_end = Startup().size() + Query("SELECT 1").size() + Query("commit;").size();
  EXPECT_EQ(ends, std::vector<size_t>{commit_end});
}

TEST(PgFrontendParser, AnExtendedProtocolCommitEndsAtItsSync) {
  std::string parse = Typed('P', std::string("\0COMMIT\0\0\0", 10));
  std::string rest = Typed('B', std::string(8, '\0')) + Typed('E', std::string(5, '\0'));
  std::string sync = Typed('S', "");
  std::string stream = Startup() + parse + rest + sync;
  PgFrontendParser p;
  EXPECT_EQ(p.Feed(stream), std::vector<size_t>{stream.size()});
  // A Parse of something else, then a Sync: no commit.
  EXPECT_TRUE(p.Feed(Typed('P', std::string("\0SELECT 1\0\0\0", 12)) + sync).empty());
}

TEST(PgFrontendParser, ALongQueryOrAnotherMessageIsNoCommit) {
  PgFrontendParser p;
  std::string stream = Startup() + Query("COMMIT" + std::string(100, ' ')) + Typed('d', "COMMIT") +
                       Query("INSERT INTO commit VALUES (1)");
  EXPECT_TRUE(p.Feed(stream).empty());
  EXPECT_FALSE(p.broken());
}

TEST(PgFrontendParser, AnImpossibleLengthStopsTheCount) {
  PgFrontendParser p;
  EXPECT_TRUE(p.Feed(Startup() + 'Q' + Int32(2) + Query("COMMIT")).empty());
  EXPECT_TRUE(p.broken());
}

}  // namespace
}  // namespace killpoint
