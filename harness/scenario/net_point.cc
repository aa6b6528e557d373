#include "scenario/net_point.h"

#include <algorithm>
#include <cctype>

#include "scenario/service_kind.h"

namespace killpoint {
namespace {

bool IsFaultMoment(std::string_view moment) {
  return moment == kNetCommit || moment == kNetSetNx || moment == kNetConnect;
}

// A verb as the proxy spells an SQL statement's or a Redis command's: INSERT, DEL, JSON.SET.
bool IsSqlOrRedisVerb(std::string_view v) {
  auto fits = [](char c) {
    return std::isupper(uint8_t(c)) || std::isdigit(uint8_t(c)) || c == '_' || c == '.';
  };
  return !v.empty() && std::isupper(uint8_t(v[0])) && std::all_of(v.begin(), v.end(), fits);
}

// An AMQP method as the proxy spells it: basic.publish, tx.commit.
bool IsAmqpVerb(std::string_view v) {
  size_t dot = v.find('.');
  auto fits = [](char c) { return std::islower(uint8_t(c)) || c == '.'; };
  return dot != std::string_view::npos && dot > 0 && dot + 1 < v.size() &&
         v.find('.', dot + 1) == std::string_view::npos && std::all_of(v.begin(), v.end(), fits);
}

}  // namespace

std::optional<NetPoint> ParseNetPoint(std::string_view point) {
  if (!IsNetPoint(point)) return std::nullopt;
  point.remove_prefix(kNetPrefix.size());
  size_t colon = point.find(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  NetPoint p{std::string(point.substr(0, colon)), std::string(point.substr(colon + 1))};
  if (!IsFaultMoment(p.moment) && !IsSqlOrRedisVerb(p.moment) && !IsAmqpVerb(p.moment))
    return std::nullopt;
  return p;
}

std::string NetCommandPoint(std::string_view service, std::string_view verb) {
  return std::string(kNetPrefix) + std::string(service) + ":" + std::string(verb);
}

bool IsNetCommandPoint(std::string_view point) {
  auto p = ParseNetPoint(point);
  return p && !IsFaultMoment(p->moment);
}

std::vector<NetAction> NetActionsAt(std::string_view moment) {
  if (moment == kNetConnect) return {NetAction::kRefuse};
  return {NetAction::kDropAnswer, NetAction::kReset, NetAction::kDelay, NetAction::kStall};
}

std::vector<NetAction> NetActionsFitting(std::string_view point,
                                         const std::vector<NetAction>& listed) {
  std::optional<NetPoint> p = ParseNetPoint(point);
  if (!p) return {};
  std::vector<NetAction> fit;
  for (NetAction a : NetActionsAt(p->moment)) {
    if (std::find(listed.begin(), listed.end(), a) != listed.end()) fit.push_back(a);
  }
  return fit;
}

bool NetMomentSeenOn(std::string_view moment, std::string_view kind) {
  const ServiceKind* k = FindServiceKind(kind);
  if (k == nullptr) return false;
  if (moment == kNetConnect) return true;
  if (moment == kNetCommit || moment == kNetSetNx) return CountedMoment(k->protocol) == moment;
  // A command's verb: AMQP's methods on an AMQP service, SQL's and Redis's on the others.
  return IsAmqpVerb(moment) == (k->protocol == WireProtocol::kAmqp);
}

}  // namespace killpoint
