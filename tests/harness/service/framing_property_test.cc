// Every framing the fault proxy reads (service/client_framing.h), on well-formed and broken
// streams alike: fed whole or cut anywhere, a parser finds the same command ends and breaks at
// the same point, and every end is inside the stream, in order.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "framing_test_util.h"

namespace killpoint {
namespace {

std::string GrammarInt32(uint32_t v) {
  return {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
}
std::string GrammarQuery(const std::string& sql) {
  return 'Q' + GrammarInt32(uint32_t(sql.size() + 5)) + sql + '\0';
}
std::string GrammarPacket(char sequence, const std::string& payload) {
  return std::string{char(payload.size()), 0, 0, sequence} + payload;
}

// A framing's start (the client's handshake) and well-formed messages of it.
struct Grammar {
  std::string start;
  std::vector<std::string> messages;
};
Grammar GrammarOf(Framing framing) {
  if (framing == Framing::kPostgres) {
    return {GrammarInt32(8) + GrammarInt32(196608),
            {GrammarQuery("COMMIT"), GrammarQuery("SELECT 1"),
             'P' + GrammarInt32(14) + std::string("\0COMMIT\0\0\0", 10), 'S' + GrammarInt32(4),
             GrammarQuery(std::string(80, 'x'))}};
  }
  if (framing == Framing::kMysql) {
    return {GrammarPacket(1, std::string("\x05\xa2\x0e\x00", 4) + std::string(28, '\0')),
            {GrammarPacket(0,
                           "\x03"
                           "COMMIT"),
             GrammarPacket(0,
                           "\x03"
                           "SELECT 1"),
             GrammarPacket(0, "\x0e"),
             GrammarPacket(3,
                           "\x03"
                           "COMMIT"),
             GrammarPacket(0, "\x03" + std::string(80, 'x'))}};
  }
  return {"",
          {"*4\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n$2\r\nNX\r\n",
           "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", "SETNX k v\r\n", "SET k \"a b\" nx\n", "*0\r\n"}};
}

// Well-formed messages with, now and then, a piece of bytes that lean to the protocols' own
// (headers, digits, CRLF, quotes, SET, NX, COMMIT): the parser walks past its first header and
// meets both.
rc::Gen<std::string> StreamOf(Framing framing) {
  const Grammar g = GrammarOf(framing);
  const std::vector<std::string> pieces = {"*", "$",    "\r\n", "\n",   "0",    "1",  "3",
                                           " ", "\"",   "'",    "\\",   "SET",  "NX", "COMMIT",
                                           "Q", "\x03", "\x00", "\x08", "\xff", "-"};
  auto part = rc::gen::weightedOneOf<std::string>(
      {{6, rc::gen::elementOf(g.messages)}, {1, rc::gen::elementOf(pieces)}});
  return rc::gen::map(rc::gen::container<std::vector<std::string>>(part),
                      [start = g.start](const std::vector<std::string>& parts) {
                        std::string out = start;
                        for (const auto& p : parts) out += p;
                        return out;
                      });
}

RC_GTEST_PROP(ClientFraming, AnyStreamCutAnywhereGivesTheSameEndsAsWhole, ()) {
  const Framing framing = *rc::gen::element(Framing::kPostgres, Framing::kMysql, Framing::kRedis);
  const std::string stream = *StreamOf(framing);
  auto cuts =
      *rc::gen::container<std::vector<size_t>>(rc::gen::inRange<size_t>(0, stream.size() + 1));
  std::sort(cuts.begin(), cuts.end());
  auto whole = MakeClientFraming(framing), pieces = MakeClientFraming(framing);
  const std::vector<size_t> ends = whole->Feed(stream);
  RC_ASSERT(FeedCut(*pieces, stream, cuts) == ends);
  RC_ASSERT(whole->broken() == pieces->broken());
  RC_ASSERT(std::is_sorted(ends.begin(), ends.end()));
  for (size_t end : ends) RC_ASSERT(end >= 1 && end <= stream.size());
}

TEST(ClientFraming, EachServiceKindHasItsFramingAndMoment) {
  EXPECT_EQ(FramingOfKind("postgres"), Framing::kPostgres);
  EXPECT_EQ(FramingOfKind("mariadb"), Framing::kMysql);
  EXPECT_EQ(FramingOfKind("redis"), Framing::kRedis);
  EXPECT_EQ(FramingOfKind("rabbitmq"), Framing::kNone);
  EXPECT_STREQ(FramingMoment(Framing::kMysql), "commit");
  EXPECT_STREQ(FramingMoment(Framing::kRedis), "set_nx");
  EXPECT_EQ(FramingMoment(Framing::kNone), nullptr);
  EXPECT_EQ(MakeClientFraming(Framing::kNone), nullptr);
}

}  // namespace
}  // namespace killpoint
