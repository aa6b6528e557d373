// The redis kind (docs/services.md): Debian's redis-server, its folder in the run's sandbox
// root, listening on 127.0.0.1 on a port it picks, with no persistence (no RDB snapshot, no
// append-only file: the state lives in the server's memory). A trial gets an empty server:
// FLUSHALL at its start.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "service/service.h"
#include "util/result.h"

namespace killpoint {

inline constexpr const char* kRedisServer = "/usr/bin/redis-server";
inline constexpr const char* kRedisTrialDatabase = "0";  // the database index a trial uses

Result<std::unique_ptr<RunningService>> StartRedis(const std::string& name,
                                                   const std::filesystem::path& root,
                                                   const ServerMarks& marks, bool fast = false);
std::string RedisUrl(const ServiceAddress& address);
void RedisEnv(const ServiceAddress& address, ServiceEnvironment& env);

inline constexpr ServiceKindImpl kRedisKind{"redis", &StartRedis, &RedisUrl, &RedisEnv};

}  // namespace killpoint
