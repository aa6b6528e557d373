#include "suite/shard.h"

#include <charconv>
#include <string>

namespace killpoint {
namespace {

// A whole non-negative decimal number, nothing else.
std::optional<int> Number(std::string_view s) {
  int value = 0;
  if (s.empty() || s.front() == '-' || s.front() == '+') return std::nullopt;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

}  // namespace

Result<ShardInfo> ParseShard(std::string_view text) {
  std::string shown = "--shard " + std::string(text);
  size_t slash = text.find('/');
  if (slash == std::string_view::npos)
    return Error::BadInput(shown + ": expected INDEX/COUNT, such as 0/4");
  auto index = Number(text.substr(0, slash));
  auto count = Number(text.substr(slash + 1));
  if (!index || !count)
    return Error::BadInput(shown + ": INDEX and COUNT must be whole numbers, such as 0/4");
  if (*count < 1) return Error::BadInput(shown + ": COUNT must be at least 1");
  if (*index >= *count) {
    return Error::BadInput(shown + ": INDEX must be below COUNT (shards are numbered 0 to " +
                           std::to_string(*count - 1) + ")");
  }
  return ShardInfo{*index, *count};
}

}  // namespace killpoint
