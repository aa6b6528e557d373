// Every framing the fault proxy reads (service/client_framing.h), on well-formed and broken
// streams alike: fed whole or cut anywhere, a parser finds the same commands (ends, verbs, counted
// or not) and breaks at the same point, and every end is inside the stream, in order.
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
Grammar GrammarOf(WireProtocol framing) {
  if (framing == WireProtocol::kPostgres) {
    return {GrammarInt32(8) + GrammarInt32(196608),
            {GrammarQuery("COMMIT"), GrammarQuery("SELECT 1"),
             'P' + GrammarInt32(14) + std::string("\0COMMIT\0\0\0", 10), 'S' + GrammarInt32(4),
             GrammarQuery(std::string(80, 'x'))}};
  }
  if (framing == WireProtocol::kMysql) {
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
  if (framing == WireProtocol::kAmqp) {
    auto frame = [](char type, const std::string& payload) {
      return type + std::string("\0\1", 2) + GrammarInt32(uint32_t(payload.size())) + payload +
             '\xCE';
    };
    std::string publish = frame(1, std::string("\0\x3c\0\x28", 4) + std::string(6, '\0'));
    std::string header =
        std::string("\0\x3c\0\0", 4) + std::string(7, '\0') + '\3' + std::string(2, '\0');
    return {std::string("AMQP\0\0\x09\x01", 8),
            {publish + frame(2, header) + frame(3, "abc"), frame(8, ""),
             frame(1, std::string("\0\x3c\0\x50", 4) + std::string(9, '\0')),
             frame(1, std::string("\0\x55\0\x0a", 4) + '\0'), frame(3, "stray")}};
  }
  return {"",
          {"*4\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n$2\r\nNX\r\n",
           "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", "SETNX k v\r\n", "SET k \"a b\" nx\n", "*0\r\n"}};
}

// Well-formed messages with, now and then, a piece of bytes that lean to the protocols' own
// (headers, digits, CRLF, quotes, SET, NX, COMMIT): the parser walks past its first header and
// meets both.
rc::Gen<std::string> StreamOf(WireProtocol framing) {
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
  const WireProtocol framing = *rc::gen::element(WireProtocol::kPostgres, WireProtocol::kMysql,
                                                 WireProtocol::kRedis, WireProtocol::kAmqp);
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

// The same of every command read, not only the counted ones: its end, verb and answer.
RC_GTEST_PROP(ClientFraming, AnyStreamCutAnywhereReadsTheSameCommandsAsWhole, ()) {
  const WireProtocol framing = *rc::gen::element(WireProtocol::kPostgres, WireProtocol::kMysql,
                                                 WireProtocol::kRedis, WireProtocol::kAmqp);
  const std::string stream = *StreamOf(framing);
  const size_t cut = *rc::gen::inRange<size_t>(0, stream.size() + 1);
  auto whole = MakeClientFraming(framing), pieces = MakeClientFraming(framing);
  const std::vector<ClientCommand> commands = whole->Read(stream);
  std::vector<ClientCommand> read = pieces->Read(std::string_view(stream).substr(0, cut));
  for (ClientCommand c : pieces->Read(std::string_view(stream).substr(cut))) {
    c.end += cut;
    read.push_back(c);
  }
  RC_ASSERT(read == commands);
  for (const ClientCommand& c : commands) RC_ASSERT(!c.verb.empty() && c.end <= stream.size());
}

TEST(ClientFraming, EachProtocolHasItsFramingAndMoment) {
  EXPECT_EQ(FindServiceKind("postgres")->protocol, WireProtocol::kPostgres);
  EXPECT_EQ(FindServiceKind("mariadb")->protocol, WireProtocol::kMysql);
  EXPECT_EQ(FindServiceKind("redis")->protocol, WireProtocol::kRedis);
  EXPECT_EQ(FindServiceKind("rabbitmq")->protocol, WireProtocol::kAmqp);
  EXPECT_EQ(CountedMoment(WireProtocol::kMysql), "commit");
  EXPECT_EQ(CountedMoment(WireProtocol::kRedis), "set_nx");
  EXPECT_EQ(CountedMoment(WireProtocol::kAmqp), "");  // command points only
  for (WireProtocol p :
       {WireProtocol::kPostgres, WireProtocol::kMysql, WireProtocol::kRedis, WireProtocol::kAmqp}) {
    EXPECT_NE(MakeClientFraming(p), nullptr);
  }
}

}  // namespace
}  // namespace killpoint
