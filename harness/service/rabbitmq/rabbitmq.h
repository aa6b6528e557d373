// The rabbitmq kind (docs/services.md): Debian's RabbitMQ broker, an Erlang VM, its files in the
// run's sandbox root, listening on 127.0.0.1 only (AMQP, the management plugin's HTTP API, the
// Erlang distribution) on picked ports, with an epmd of its own on a picked port, started and
// stopped with it (an epmd the VM started itself would detach and outlive the run). A trial gets
// a fresh vhost, created through the management API; the last trial's is deleted first.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "service/service.h"
#include "util/result.h"

namespace killpoint {

// A broker has no fast setting (scenario/service_kind.h): `fast` is never true.
Result<std::unique_ptr<RunningService>> StartRabbitmq(const std::string& name,
                                                      const std::filesystem::path& root,
                                                      const ServerMarks& marks, bool fast = false);
std::string RabbitmqUrl(const ServiceAddress& address);
void RabbitmqEnv(const ServiceAddress& address, ServiceEnvironment& env);

inline constexpr ServiceKindImpl kRabbitmqKind{"rabbitmq", &StartRabbitmq, &RabbitmqUrl,
                                               &RabbitmqEnv};

}  // namespace killpoint
