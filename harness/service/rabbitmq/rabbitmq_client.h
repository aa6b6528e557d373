// The harness's two ways into a rabbitmq service (docs/services.md): the management plugin's HTTP
// API (cpp-httplib), for the per-trial vhost and the start-up wait, and AMQP itself (librabbitmq),
// for a queue check's live count: the management API's counts are statistics, seconds late.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "service/service.h"
#include "util/result.h"

namespace killpoint {

// The broker's one user, made at its first start with server_launch.h's ServerPassword in place of
// RabbitMQ's guest/guest (docs/hardening.md): an administrator, for the management API too.
inline constexpr const char* kRabbitmqUser = "killpoint";

// One call of the management API on 127.0.0.1:`admin_port` as kRabbitmqUser: an error unless it
// answers 2xx. `body`, when not empty, is sent as JSON; `answer`, when given, gets the answer's
// body.
Status RabbitmqApi(int admin_port, const std::string& method, const std::string& path,
                   const std::string& body = "", std::string* answer = nullptr);

// Whether something accepts a TCP connection on 127.0.0.1:`port`.
bool LoopbackPortOpen(int port);

// Whether the broker answers on both its AMQP port and its management API: for the start wait.
bool RabbitmqAccepting(int amqp_port, int admin_port);

struct RabbitmqQueueState {
  bool exists = false;
  int64_t ready = 0;  // messages ready for delivery
  int64_t consumers = 0;
};

// The queue `queue` of `address`'s vhost as AMQP's passive queue.declare reports it, now.
Result<RabbitmqQueueState> ReadRabbitmqQueue(const ServiceAddress& address,
                                             const std::string& queue);

// `s` percent-encoded for a URL's path segment (RFC 3986's unreserved characters kept).
std::string UrlSegment(const std::string& s);

}  // namespace killpoint
