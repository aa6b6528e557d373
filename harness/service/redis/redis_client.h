// A small hiredis client for the harness's own commands on a redis service: the start-up wait
// and the per-trial FLUSHALL (redis.cc), and the scenario's key checks
// (check/service_redis_checks.cc).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "service/service.h"
#include "util/result.h"

struct redisContext;

namespace killpoint {

// One reply, as plain data. An error reply is an Error of Command, never a RedisReply.
struct RedisReply {
  enum class Type { kNil, kString, kInteger, kArray };
  Type type = Type::kNil;
  std::string text;  // kString (a bulk or a status reply)
  long long integer = 0;
  std::vector<RedisReply> elements;  // kArray
  bool operator==(const RedisReply&) const = default;
};

class RedisConnection {
 public:
  // Connects to the server at `address` (its host and port), waiting at most `timeout_ms`
  // for the connection and for each reply.
  static Result<RedisConnection> Open(const ServiceAddress& address, int timeout_ms = 10000);

  // Sends one command, its arguments binary-safe, and reads its reply. An error reply or a
  // broken connection is an Error carrying the server's or hiredis's message.
  Result<RedisReply> Command(const std::vector<std::string>& argv);

 private:
  explicit RedisConnection(redisContext* c);
  std::unique_ptr<redisContext, void (*)(redisContext*)> conn_;
};

// Whether a server answers PING at `address`: for the start-up wait.
bool RedisAccepting(const ServiceAddress& address);

}  // namespace killpoint
