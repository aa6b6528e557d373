// The MySQL client protocol as the fault proxy reads it (service/mariadb/mysql_framing.h): the
// COMMITs it counts for `net:SVC:commit` on a mariadb service, after the handshake and an auth
// switch, whole, byte by byte, pipelined, and a stream it cannot read that stops the count.
#include "service/mariadb/mysql_framing.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "framing_test_util.h"

namespace killpoint {
namespace {

std::string MyPacket(uint8_t sequence, const std::string& payload) {
  size_t n = payload.size();
  return std::string{char(n), char(n >> 8), char(n >> 16), char(sequence)} + payload;
}
std::string MyQuery(const std::string& sql) { return MyPacket(0, '\x03' + sql); }
// A handshake response as PyMySQL sends it: CLIENT_PROTOCOL_41 and the usual flags, then a
// user, an empty password and a database.
std::string HandshakeResponse(uint32_t flags = 0x000ea205) {
  std::string payload{char(flags), char(flags >> 8), char(flags >> 16), char(flags >> 24)};
  payload += std::string("\0\0\0\1", 4) + '\x21' + std::string(23, '\0') + "root" + '\0' + '\0' +
             "killpoint" + '\0' + "mysql_native_password" + '\0';
  return MyPacket(1, payload);
}
std::string AuthSwitchAnswer() { return MyPacket(3, std::string(20, '\x5a')); }

TEST(MysqlCommitText, RecognisesCommitAndItsForms) {
  for (const char* sql : {"COMMIT", "commit", " Commit ;", "COMMIT WORK", "commit and no chain",
                          "COMMIT WORK AND CHAIN NO RELEASE", "COMMIT RELEASE", "commit\n"}) {
    EXPECT_TRUE(IsMysqlCommitText(sql)) << sql;
  }
  for (const char* sql : {"END", "BEGIN", "ROLLBACK", "SELECT 'COMMIT'", "", "COMMITTED",
                          "COMMIT TRANSACTION", "COMMIT RELEASE WORK", "COMMIT; SELECT 1"}) {
    EXPECT_FALSE(IsMysqlCommitText(sql)) << sql;
  }
}

TEST(MysqlClientParser, FindsACommitAfterTheHandshakeAndAnAuthSwitch) {
  std::string stream = HandshakeResponse() + AuthSwitchAnswer() + MyQuery("SET autocommit=0") +
                       MyQuery("INSERT INTO t VALUES (1)") + MyQuery("COMMIT");
  MysqlClientParser p;
  EXPECT_EQ(p.Feed(stream), std::vector<size_t>{stream.size()});
  EXPECT_FALSE(p.broken());
}

TEST(MysqlClientParser, FindsTheSameCommitsFedOneByteAtATimeAndPipelined) {
  std::string a = HandshakeResponse() + MyQuery("BEGIN") + MyQuery("commit;");
  std::string stream = a + MyPacket(0, "\x0e") + MyQuery("COMMIT WORK") + MyQuery("SELECT 2");
  MysqlClientParser whole, bytes;
  std::vector<size_t> ends = whole.Feed(stream);
  EXPECT_EQ(ends, (std::vector<size_t>{a.size(), a.size() + 5 + MyQuery("COMMIT WORK").size()}));
  EXPECT_EQ(FeedCut(bytes, stream, EveryByte(stream)), ends);
}

TEST(MysqlClientParser, OnlyACommandPacketIsACommit) {
  MysqlClientParser p;
  // A COMMIT text in the handshake's auth data, in a LOAD DATA's file packet, as a prepared
  // statement (COM_STMT_PREPARE, 0x16), or longer than a bare COMMIT: none is counted.
  std::string stream = HandshakeResponse() +
                       MyPacket(3,
                                "\x03"
                                "COMMIT") +
                       MyQuery("LOAD DATA LOCAL INFILE 'x' INTO TABLE t") +
                       MyPacket(2,
                                "\x03"
                                "COMMIT") +
                       MyPacket(3, "") +
                       MyPacket(0,
                                "\x16"
                                "COMMIT") +
                       MyQuery("COMMIT" + std::string(100, ' ')) + MyQuery("SELECT 'COMMIT'");
  EXPECT_TRUE(p.Feed(stream).empty());
  EXPECT_FALSE(p.broken());
  // A 16 MiB query goes on in the next packet (sequence 1): its last part is no command.
  MysqlClientParser q;
  std::string big = MyPacket(0, '\x03' + std::string(0xFFFFFE, ' ')).substr(0, 4);
  big[0] = big[1] = big[2] = '\xff';
  big += '\x03' + std::string(0xFFFFFE, ' ');
  EXPECT_TRUE(q.Feed(HandshakeResponse() + big + MyPacket(1, "") + MyQuery("COMMIT")).size() == 1);
}

TEST(MysqlClientParser, TlsCompressionOrAStreamOutOfStepStopsTheCount) {
  const std::vector<std::string> bad = {
      MyPacket(1, std::string("\x05\xaa\x0e\x00", 4) + std::string(28, '\0')),  // an SSLRequest
      HandshakeResponse(0x000ea225),                                            // CLIENT_COMPRESS
      MyQuery("COMMIT"),                      // no handshake first: sequence 0
      HandshakeResponse() + MyPacket(0, ""),  // a command with no command byte
  };
  for (const std::string& start : bad) {
    MysqlClientParser p;
    EXPECT_TRUE(p.Feed(start + MyQuery("COMMIT")).empty());
    EXPECT_TRUE(p.broken());
  }
}

// Any handshake (with or without an auth switch) then any commands, cut anywhere: the COMMITs
// are found where they end, and nothing else.
RC_GTEST_PROP(MysqlClientParser, FindsEveryCommitWhereverTheStreamIsCut, ()) {
  const std::vector<std::string> vocabulary = {MyQuery("COMMIT"),
                                               MyQuery("commit work"),
                                               MyQuery("BEGIN"),
                                               MyQuery("INSERT INTO t VALUES (1)"),
                                               MyPacket(0, "\x0e"),
                                               MyQuery("ROLLBACK"),
                                               MyPacket(0,
                                                        "\x16"
                                                        "COMMIT"),
                                               MyQuery(std::string(200, 'x'))};
  std::string stream = HandshakeResponse();
  if (*rc::gen::arbitrary<bool>()) stream += AuthSwitchAnswer();
  std::vector<size_t> expected;
  for (size_t pick :
       *rc::gen::container<std::vector<size_t>>(rc::gen::inRange<size_t>(0, vocabulary.size()))) {
    stream += vocabulary[pick];
    if (pick < 2) expected.push_back(stream.size());
  }
  auto cuts =
      *rc::gen::container<std::vector<size_t>>(rc::gen::inRange<size_t>(0, stream.size() + 1));
  std::sort(cuts.begin(), cuts.end());
  MysqlClientParser p;
  RC_ASSERT(FeedCut(p, stream, cuts) == expected);
  RC_ASSERT(!p.broken());
}

}  // namespace
}  // namespace killpoint
