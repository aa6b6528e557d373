#include "scenario/net_point.h"

namespace killpoint {

std::optional<NetPoint> ParseNetPoint(std::string_view point) {
  if (!IsNetPoint(point)) return std::nullopt;
  point.remove_prefix(kNetPrefix.size());
  size_t colon = point.find(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  NetPoint p{std::string(point.substr(0, colon)), std::string(point.substr(colon + 1))};
  if (p.moment != kNetCommit && p.moment != kNetSetNx && p.moment != kNetConnect)
    return std::nullopt;
  return p;
}

std::string NetCommandPoint(std::string_view service, std::string_view verb) {
  return std::string(kNetPrefix) + std::string(service) + ":" + std::string(verb);
}

bool IsNetCommandPoint(std::string_view point) {
  if (!IsNetPoint(point)) return false;
  std::string_view rest = point.substr(kNetPrefix.size());
  size_t colon = rest.find(':');
  return colon != std::string_view::npos && colon > 0 && colon + 1 < rest.size() &&
         !ParseNetPoint(point);
}

std::vector<std::string> NetActionsAt(std::string_view moment) {
  if (moment == kNetCommit || moment == kNetSetNx) return {kNetDropAnswer, kNetReset, kNetDelay};
  if (moment == kNetConnect) return {kNetRefuse};
  return {};
}

bool NetMomentSeenOn(std::string_view moment, std::string_view kind) {
  if (moment == kNetCommit) return kind == "postgres" || kind == "mariadb";
  if (moment == kNetSetNx) return kind == "redis";
  return moment == kNetConnect;
}

}  // namespace killpoint
