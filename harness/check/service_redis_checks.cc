// A scenario's own invariant on a redis service (docs/services.md, "Redis checks"): the keys
// matching a pattern, how many, and whether each expires, as the job left them.
#include <algorithm>

#include "check/checker.h"
#include "service/redis/redis_client.h"
#include "util/printable.h"

namespace killpoint {
namespace {

constexpr size_t kRedisKeysShown = 3;
constexpr size_t kRedisKeyBytes = 80;
constexpr size_t kRedisExplanationBytes = 600;

std::string RedisKeyShown(const RedisKeyState& k) {
  return Printable(k.key, kRedisKeyBytes) +
         (k.ttl_ms < 0 ? " (no expiry)" : " (expires in " + std::to_string(k.ttl_ms) + " ms)");
}

// The first kRedisKeysShown of `keys`, "first 3: " when there are more.
std::string RedisKeysShown(const std::vector<RedisKeyState>& keys) {
  std::string out =
      keys.size() > kRedisKeysShown ? "first " + std::to_string(kRedisKeysShown) + ": " : "";
  for (size_t i = 0; i < keys.size() && i < kRedisKeysShown; ++i) {
    out += (i == 0 ? "" : "; ") + RedisKeyShown(keys[i]);
  }
  return out;
}

std::string RedisKeyCount(size_t n) { return std::to_string(n) + (n == 1 ? " key" : " keys"); }

Verdict RedisViolated(const std::string& name, const std::string& text) {
  return Verdict::Violated(name, Printable(text, kRedisExplanationBytes));
}

Result<std::vector<RedisKeyState>> ReadRedisKeys(RedisConnection& c, const std::string& pattern) {
  auto found = c.Command({"KEYS", pattern});
  if (!found) return found.error();
  std::vector<RedisKeyState> keys;
  for (const auto& k : found.value().elements) {
    auto ttl = c.Command({"PTTL", k.text});
    if (!ttl) return ttl.error();
    if (ttl.value().integer == -2) continue;  // gone since (expired)
    keys.push_back({k.text, ttl.value().integer});
  }
  std::sort(keys.begin(), keys.end(),
            [](const RedisKeyState& a, const RedisKeyState& b) { return a.key < b.key; });
  return keys;
}

}  // namespace

Verdict JudgeRedisKeys(const std::string& name, const SqlCheck& check,
                       const std::vector<RedisKeyState>& keys, const std::string& where) {
  const RedisKeyCheck& k = check.redis;
  const std::string matching = RedisKeyCount(keys.size()) + " matching '" +
                               Printable(k.keys, kRedisKeyBytes) + "' in " + where;
  if (k.at_least && static_cast<int64_t>(keys.size()) < *k.at_least) {
    return RedisViolated(name, check.says + ": " + matching + ", at least " +
                                   std::to_string(*k.at_least) + " expected" +
                                   (keys.empty() ? "" : ": " + RedisKeysShown(keys)));
  }
  if (k.at_most && static_cast<int64_t>(keys.size()) > *k.at_most) {
    return RedisViolated(name, check.says + ": " + matching + ", at most " +
                                   std::to_string(*k.at_most) +
                                   " expected: " + RedisKeysShown(keys));
  }
  if (k.ttl_required) {
    std::vector<RedisKeyState> forever;
    std::copy_if(keys.begin(), keys.end(), std::back_inserter(forever),
                 [](const RedisKeyState& s) { return s.ttl_ms < 0; });
    if (!forever.empty()) {
      return RedisViolated(name, check.says + ": " + std::to_string(forever.size()) + " of " +
                                     matching + (forever.size() == 1 ? " has" : " have") +
                                     " no expiry: " + RedisKeysShown(forever));
    }
  }
  return Verdict::Held(name, matching);
}

Verdict RunServiceRedisCheck(const std::string& name, const SqlCheck& check,
                             const ServiceAddresses& services) {
  auto it = services.find(check.service);
  if (it == services.end()) {
    return Verdict::Violated(name, "service " + check.service + " did not run in this trial");
  }
  const std::string where = "service " + check.service + " (" + it->second.kind + ")";
  auto conn = RedisConnection::Open(it->second);
  auto keys = conn ? ReadRedisKeys(conn.value(), check.redis.keys)
                   : Result<std::vector<RedisKeyState>>(conn.error());
  if (!keys)
    return RedisViolated(name, "cannot run the check on " + where + ": " + keys.error().message);
  return JudgeRedisKeys(name, check, keys.value(), where);
}

}  // namespace killpoint
