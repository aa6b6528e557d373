// Redis's request framing as the fault proxy reads it (service/redis/redis_framing.h): the SET ...
// NX and SETNX it counts for `net:SVC:set_nx`, whole, byte by byte, pipelined, inline, and a
// malformed stream that stops the count.
#include "service/redis/redis_framing.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "framing_test_util.h"

namespace killpoint {
namespace {

// A command as every client library sends it: an array of bulk strings.
std::string Resp(const std::vector<std::string>& args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (const auto& a : args) out += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  return out;
}

// `stream` fed in pieces cut at `cuts` (sorted offsets); the ends found, as offsets in `stream`.

TEST(RespCommandParser, CountsSetWithNxAndSetnxAndNothingElse) {
  const std::string set_nx = Resp({"SET", "lock:2026-11-01", "token", "PX", "150", "NX"});
  const std::string setnx = Resp({"setnx", "lock:2026-11-01", "token"});
  std::string stream = Resp({"SELECT", "0"}) + set_nx + Resp({"GET", "lock:2026-11-01"}) + setnx;
  RespCommandParser p;
  const size_t first = Resp({"SELECT", "0"}).size() + set_nx.size();
  EXPECT_EQ(p.Feed(stream), (std::vector<size_t>{first, stream.size()}));
  EXPECT_FALSE(p.broken());
  // A value or key that reads NX, XX, a long option, GET with NX, or SETNX with a wrong arity:
  // none set a key if absent (or none is run).
  for (const auto& args : std::vector<std::vector<std::string>>{{"SET", "k", "NX"},
                                                                {"SET", "NX", "v"},
                                                                {"SET", "k", "v", "XX"},
                                                                {"SET", "k", "v", "NXNXNXNXNX"},
                                                                {"GET", "k", "NX"},
                                                                {"SETNX", "k"},
                                                                {"SETNXX", "k", "v"},
                                                                {"HSETNX", "h", "f", "v"}}) {
    EXPECT_TRUE(p.Feed(Resp(args)).empty()) << Resp(args);
  }
  EXPECT_EQ(p.Feed(Resp({"set", "k", "v", "ex", "60", "nx"})).size(), 1u);  // any case
  EXPECT_FALSE(p.broken());
}

TEST(RespCommandParser, FindsTheSameCommandsFedOneByteAtATime) {
  std::string stream = Resp({"PING"}) +
                       Resp({"SET", "idem:2026-11-01", std::string(300, 'x'), "NX"}) +
                       Resp({"SET", "paid", ""}) + Resp({"SETNX", "k", "v"});
  RespCommandParser whole, bytes;
  std::vector<size_t> ends = whole.Feed(stream);
  ASSERT_EQ(ends.size(), 2u);
  EXPECT_EQ(FeedCut(bytes, stream, EveryByte(stream)), ends);
  EXPECT_EQ(ends[1], stream.size());
}

TEST(RespCommandParser, InlineCommandsAreSplitAsTheServerSplitsThem) {
  RespCommandParser p;
  std::string a = "SET lock \"a b\" NX\r\n", b = "set k 'it\\'s' px 10 nx\n", c = "SET k NX\r\n";
  std::string d = "  \r\nSETNX  k\tv\r\n", e = "SET k \"NX\"\r\n";
  std::string stream = a + b + c + d + e;
  EXPECT_EQ(p.Feed(stream), (std::vector<size_t>{a.size(), a.size() + b.size(),
                                                 a.size() + b.size() + c.size() + d.size()}));
  EXPECT_FALSE(p.broken());
  RespCommandParser quoted;
  EXPECT_EQ(quoted.Feed("SET k v \"nx\"\r\n").size(), 1u);  // a quoted NX is an NX
}

TEST(RespCommandParser, AnEmptyArrayIsNoCommand) {
  RespCommandParser p;
  std::string stream = "*0\r\n*-1\r\n" + Resp({"SET", "k", "v", "NX"});
  EXPECT_EQ(p.Feed(stream), std::vector<size_t>{stream.size()});
}

TEST(RespCommandParser, AMalformedStreamStopsTheCount) {
  for (std::string bad : std::vector<std::string>{
           "*1\r\n+SET\r\n", "*x\r\n", "*1\r\n$-1\r\n", "*1\r\n$3\r\nSETxx", "*1\r\n$3\n", "*\r\n",
           "*1\r\n$999999999999\r\n", "*1\r\n$12345678901234567890\r\n",
           "*1\r\n$9999999999999999999\r\n", "SET k \"v\r\n", "SET k \"v\"x NX\r\n",
           std::string(64 * 1024 + 1, 'a')}) {
    RespCommandParser p;
    EXPECT_TRUE(p.Feed(bad + Resp({"SET", "k", "v", "NX"})).empty()) << bad;
    EXPECT_TRUE(p.broken()) << bad;
  }
}

// Any pipeline of commands, in either form, cut anywhere: the SET ... NX and SETNX are found
// where they end, and nothing else.
RC_GTEST_PROP(RespCommandParser, FindsEveryCountedCommandWhereverTheStreamIsCut, ()) {
  const std::vector<std::vector<std::string>> vocabulary = {
      {"SET", "lock:d", "t", "NX", "PX", "150"},
      {"SETNX", "lock:d", "t"},
      {"SET", "k", "v"},
      {"GET", "NX"},
      {"SET", "k", "NX"},
      {"set", "k", "v", "nx"},
      {"EVAL", "return 1", "0"},
      {"SET", "k", std::string(40, 'v'), "XX"}};
  const auto picks =
      *rc::gen::container<std::vector<size_t>>(rc::gen::inRange<size_t>(0, vocabulary.size()));
  const auto inline_form =
      *rc::gen::container<std::vector<bool>>(picks.size(), rc::gen::arbitrary<bool>());
  std::string stream;
  std::vector<size_t> expected;
  for (size_t i = 0; i < picks.size(); ++i) {
    const auto& args = vocabulary[picks[i]];
    if (inline_form[i] && args[1].find(' ') == std::string::npos) {
      std::string line;
      for (const auto& a : args) line += (line.empty() ? "" : " ") + a;
      stream += line + "\r\n";
    } else {
      stream += Resp(args);
    }
    if (picks[i] < 2 || picks[i] == 5) expected.push_back(stream.size());
  }
  auto cuts =
      *rc::gen::container<std::vector<size_t>>(rc::gen::inRange<size_t>(0, stream.size() + 1));
  std::sort(cuts.begin(), cuts.end());
  RespCommandParser p;
  RC_ASSERT(FeedCut(p, stream, cuts) == expected);
  RC_ASSERT(!p.broken());
}

}  // namespace
}  // namespace killpoint
