#include "service/redis/redis_client.h"

#include <hiredis/hiredis.h>
#include <sys/time.h>

namespace killpoint {
namespace {

timeval Timeval(int ms) { return {ms / 1000, (ms % 1000) * 1000}; }

RedisReply Converted(const redisReply& r) {
  RedisReply out;
  switch (r.type) {
    case REDIS_REPLY_STRING:
    case REDIS_REPLY_STATUS:
      out.type = RedisReply::Type::kString;
      out.text.assign(r.str, r.len);
      break;
    case REDIS_REPLY_INTEGER:
      out.type = RedisReply::Type::kInteger;
      out.integer = r.integer;
      break;
    case REDIS_REPLY_ARRAY:
      out.type = RedisReply::Type::kArray;
      for (size_t i = 0; i < r.elements; ++i) out.elements.push_back(Converted(*r.element[i]));
      break;
    default:
      break;  // nil
  }
  return out;
}

std::string Where(const ServiceAddress& a) { return a.host + ":" + std::to_string(a.port); }

}  // namespace

RedisConnection::RedisConnection(redisContext* c) : conn_(c, redisFree) {}

Result<RedisConnection> RedisConnection::Open(const ServiceAddress& address, int timeout_ms) {
  RedisConnection c(
      redisConnectWithTimeout(address.host.c_str(), address.port, Timeval(timeout_ms)));
  if (c.conn_ == nullptr) return Error::Harness("hiredis: out of memory");
  if (c.conn_->err) {
    return Error::Harness("cannot connect to redis at " + Where(address) + ": " + c.conn_->errstr);
  }
  if (redisSetTimeout(c.conn_.get(), Timeval(timeout_ms)) != REDIS_OK) {
    return Error::Harness("redis at " + Where(address) + ": cannot set a timeout");
  }
  if (!address.password.empty()) {
    if (auto auth = c.Command({"AUTH", address.password}); !auth) {
      return Error::Harness("redis at " + Where(address) + ": " + auth.error().message);
    }
  }
  return c;
}

Result<RedisReply> RedisConnection::Command(const std::vector<std::string>& argv) {
  std::vector<const char*> args;
  std::vector<size_t> lengths;
  for (const auto& a : argv) {
    args.push_back(a.data());
    lengths.push_back(a.size());
  }
  std::unique_ptr<redisReply, void (*)(void*)> r(
      static_cast<redisReply*>(redisCommandArgv(conn_.get(), static_cast<int>(args.size()),
                                                args.data(), lengths.data())),
      freeReplyObject);
  if (r == nullptr) return Error::Harness(std::string("redis: ") + conn_->errstr);
  if (r->type == REDIS_REPLY_ERROR) return Error::Harness(std::string(r->str, r->len));
  return Converted(*r);
}

bool RedisAccepting(const ServiceAddress& address) {
  auto c = RedisConnection::Open(address, 1000);
  if (!c) return false;
  auto pong = c.value().Command({"PING"});
  return pong && pong.value().text == "PONG";
}

}  // namespace killpoint
