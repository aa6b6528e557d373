// Every command a job sends, as the fault proxy's framings read it for the command points
// (docs/services.md, "Command points"): its verb and whether the server answers it, in the
// PostgreSQL, MySQL, Redis and AMQP framings, whole and byte by byte; and CommandVerb's and
// SqlVerb's spelling.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "service/client_framing.h"
#include "service/mariadb/mysql_framing.h"
#include "service/postgres/pg_framing.h"
#include "service/rabbitmq/amqp_framing.h"
#include "service/redis/redis_framing.h"

namespace killpoint {
namespace {

std::string CpInt32(uint32_t v) { return {char(v >> 24), char(v >> 16), char(v >> 8), char(v)}; }
std::string CpInt16(uint16_t v) { return {char(v >> 8), char(v)}; }
std::string CpPgTyped(char type, const std::string& body) {
  return type + CpInt32(uint32_t(body.size() + 4)) + body;
}
std::string CpPgQuery(const std::string& sql) { return CpPgTyped('Q', sql + '\0'); }
std::string CpPgStartup() { return CpInt32(8) + CpInt32(196608); }

std::vector<std::string> CpVerbs(const std::vector<ClientCommand>& commands) {
  std::vector<std::string> out;
  for (const auto& c : commands) out.push_back(c.verb);
  return out;
}

// The same stream fed whole and one byte at a time reads the same commands at the same ends.
std::vector<ClientCommand> CpReadBoth(WireProtocol framing, const std::string& stream) {
  auto whole = MakeClientFraming(framing);
  auto bytes = MakeClientFraming(framing);
  std::vector<ClientCommand> one_by_one;
  for (size_t i = 0; i < stream.size(); ++i) {
    for (ClientCommand c : bytes->Read(stream.substr(i, 1))) {
      c.end += i;
      one_by_one.push_back(c);
    }
  }
  std::vector<ClientCommand> read = whole->Read(stream);
  EXPECT_EQ(read, one_by_one);
  EXPECT_FALSE(whole->broken());
  return read;
}

TEST(CommandVerb, SpellsAWordOrOther) {
  EXPECT_EQ(CommandVerb("insert"), "INSERT");
  EXPECT_EQ(CommandVerb("basic.publish", true), "basic.publish");
  for (const char* odd : {"", "1abc", "a b", "x/y", "DROP;", "ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFG"})
    EXPECT_EQ(CommandVerb(odd), "OTHER") << odd;
}

TEST(SqlVerb, IsTheFirstWordPastBlanksAndComments) {
  EXPECT_EQ(SqlVerb("  insert into t values (1)"), "INSERT");
  EXPECT_EQ(SqlVerb("-- the day's row\n/* upsert */ UPDATE t SET x = 1"), "UPDATE");
  EXPECT_EQ(SqlVerb("(SELECT 1)"), "SELECT");
  EXPECT_EQ(SqlVerb("with x as (select 1) select * from x"), "WITH");
  EXPECT_EQ(SqlVerb(""), "OTHER");
  EXPECT_EQ(SqlVerb("/* never closed"), "OTHER");
}

TEST(PgCommands, EverySimpleQueryIsACommandNamedByItsVerb) {
  std::string long_insert = "INSERT INTO t VALUES ('" + std::string(200, 'x') + "')";
  std::string stream = CpPgStartup() + CpPgQuery("BEGIN") + CpPgQuery(long_insert) +
                       CpPgQuery("update t set a = 1") + CpPgQuery("COMMIT") + CpPgTyped('X', "");
  auto read = CpReadBoth(WireProtocol::kPostgres, stream);
  EXPECT_EQ(CpVerbs(read), (std::vector<std::string>{"BEGIN", "INSERT", "UPDATE", "COMMIT"}));
  EXPECT_FALSE(read[1].counted);
  EXPECT_TRUE(read[3].counted);  // still the framing's COMMIT for net:SVC:commit
  EXPECT_EQ(read[3].end, stream.size() - 5);
}

TEST(PgCommands, AnExtendedRoundTripIsOneCommandNamedByItsParse) {
  std::string parse = CpPgTyped('P', std::string("\0INSERT INTO t VALUES ($1)\0\0\0", 31));
  std::string bind = CpPgTyped('B', std::string(8, '\0'));
  std::string execute = CpPgTyped('E', std::string(5, '\0'));
  std::string sync = CpPgTyped('S', "");
  std::string stream = CpPgStartup() + parse + bind + execute + sync + bind + execute + sync + sync;
  auto read = CpReadBoth(WireProtocol::kPostgres, stream);
  // The second round trip runs the prepared statement again; a lone Sync is no command.
  EXPECT_EQ(CpVerbs(read), (std::vector<std::string>{"INSERT", "EXECUTE"}));
}

TEST(MysqlCommands, QueriesAndStatementsAreCommandsAndQuitIsNone) {
  auto packet = [](uint8_t sequence, const std::string& payload) {
    size_t n = payload.size();
    return std::string{char(n), char(n >> 8), char(n >> 16), char(sequence)} + payload;
  };
  std::string handshake = packet(1, std::string("\x05\xa2\x0e\x00", 4) + std::string(28, '\0'));
  std::string stream = handshake + packet(0, "\x03insert into t values (1)") +
                       packet(0, "\x16SELECT ?") + packet(0, std::string("\x17\1\0\0\0", 5)) +
                       packet(0, "\x0e") +
                       packet(0,
                              "\x03"
                              "COMMIT") +
                       packet(0, "\x01");
  auto read = CpReadBoth(WireProtocol::kMysql, stream);
  EXPECT_EQ(CpVerbs(read),
            (std::vector<std::string>{"INSERT", "PREPARE", "EXECUTE", "PING", "COMMIT"}));
  EXPECT_TRUE(read.back().counted);
}

TEST(RedisCommands, EveryCommandIsNamedByItsFirstWord) {
  auto resp = [](const std::vector<std::string>& args) {
    std::string out = "*" + std::to_string(args.size()) + "\r\n";
    for (const auto& a : args) out += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
    return out;
  };
  std::string stream = resp({"set", "lock:d", "t", "NX", "PX", "150"}) +
                       resp({"EXISTS", "done:d"}) + "\r\n" + "del lock:d\r\n" +
                       resp({"ZRANGEBYSCORE", "z", "0", "1"}) + resp({"EVAL", "return 1", "0"});
  auto read = CpReadBoth(WireProtocol::kRedis, stream);
  EXPECT_EQ(CpVerbs(read),
            (std::vector<std::string>{"SET", "EXISTS", "DEL", "ZRANGEBYSCORE", "EVAL"}));
  EXPECT_TRUE(read[0].counted);  // a SET ... NX, for net:SVC:set_nx
  EXPECT_FALSE(read[2].counted);
}

std::string CpAmqpFrame(uint8_t type, uint16_t channel, const std::string& payload) {
  return char(type) + CpInt16(channel) + CpInt32(uint32_t(payload.size())) + payload + '\xCE';
}
std::string CpAmqpMethod(uint16_t channel, uint16_t class_id, uint16_t method_id) {
  return CpAmqpFrame(1, channel, CpInt16(class_id) + CpInt16(method_id) + std::string(6, '\0'));
}
std::string CpAmqpPublish(uint16_t channel, const std::string& body, size_t pieces) {
  std::string header =
      CpInt16(60) + CpInt16(0) + CpInt32(0) + CpInt32(uint32_t(body.size())) + CpInt16(0);
  std::string out = CpAmqpMethod(channel, 60, 40) + CpAmqpFrame(2, channel, header);
  size_t step = (body.size() + pieces - 1) / pieces;
  for (size_t at = 0; at < body.size(); at += step)
    out += CpAmqpFrame(3, channel, body.substr(at, step));
  return out;
}
const std::string kCpAmqpHeader("AMQP\0\0\x09\x01", 8);

TEST(AmqpCommands, APublishEndsWithItsLastBodyFrameAndAcksAreNeverAnswered) {
  std::string open = kCpAmqpHeader + CpAmqpMethod(0, 10, 11) + CpAmqpMethod(1, 20, 10);
  std::string publish = CpAmqpPublish(1, std::string(1000, 'm'), 3);
  std::string stream = open + CpAmqpFrame(8, 0, "") + publish + CpAmqpMethod(1, 60, 80) +
                       CpAmqpMethod(1, 85, 10) + CpAmqpPublish(1, "", 1) + CpAmqpMethod(1, 90, 20);
  auto read = CpReadBoth(WireProtocol::kAmqp, stream);
  EXPECT_EQ(CpVerbs(read),
            (std::vector<std::string>{"basic.publish", "basic.ack", "basic.publish", "tx.commit"}));
  EXPECT_EQ(read[0].end, open.size() + 8 + publish.size());
  EXPECT_FALSE(read[0].answered);  // no confirm.select yet on its channel
  EXPECT_FALSE(read[1].answered);
  EXPECT_TRUE(read[2].answered);  // after confirm.select: the broker acks it
  EXPECT_TRUE(read[3].answered);
}

TEST(AmqpCommands, AnotherProtocolOrAFrameWithoutItsEndStopsTheReading) {
  AmqpClientParser http;
  EXPECT_TRUE(http.Read("GET / HTTP/1.1\r\n").empty());
  EXPECT_TRUE(http.broken());
  AmqpClientParser no_end;
  std::string frame = CpAmqpMethod(1, 60, 80);
  frame.back() = 'x';
  EXPECT_TRUE(no_end.Read(kCpAmqpHeader + frame + CpAmqpMethod(1, 60, 80)).empty());
  EXPECT_TRUE(no_end.broken());
}

}  // namespace
}  // namespace killpoint
