// A scenario's own invariant on a rabbitmq service's queue (docs/services.md): the count of
// messages ready in a queue of the trial's vhost, read live through AMQP (a passive
// queue.declare), against the count the check expects.
#include <thread>

#include "check/checker.h"
#include "service/rabbitmq/rabbitmq_client.h"
#include "util/printable.h"

namespace killpoint {
namespace {

constexpr size_t kQueueExplanationBytes = 600;
// A killed consumer's connection closes a moment after the kill; until the broker has seen it,
// its unacknowledged messages are not back in the queue. Wait for them, not for ever.
constexpr std::chrono::seconds kConsumersGonePatience{3};
constexpr std::chrono::milliseconds kConsumersPoll{20};

Result<RabbitmqQueueState> ReadOnceConsumersGone(const ServiceAddress& address,
                                                 const std::string& queue) {
  auto deadline = std::chrono::steady_clock::now() + kConsumersGonePatience;
  while (true) {
    auto state = ReadRabbitmqQueue(address, queue);
    if (!state || state.value().consumers == 0 || std::chrono::steady_clock::now() > deadline) {
      return state;
    }
    std::this_thread::sleep_for(kConsumersPoll);
  }
}

}  // namespace

Verdict RunServiceQueueCheck(const std::string& name, const SqlCheck& check,
                             const ServiceAddresses& services) {
  auto it = services.find(check.service);
  if (it == services.end()) {
    return Verdict::Violated(name, "service " + check.service + " did not run in this trial");
  }
  const std::string where = "queue " + check.queue + " of service " + check.service + " (" +
                            it->second.kind + ", vhost " + it->second.database + ")";
  auto state = ReadOnceConsumersGone(it->second, check.queue);
  if (!state) {
    return Verdict::Violated(name, Printable("cannot read " + where + ": " + state.error().message,
                                             kQueueExplanationBytes));
  }
  if (!state.value().exists) {
    return Verdict::Violated(
        name, Printable(check.says + ": there is no " + where, kQueueExplanationBytes));
  }
  const int64_t ready = state.value().ready;
  const std::string count =
      std::to_string(ready) + (ready == 1 ? " message" : " messages") + " ready in " + where;
  if (ready == check.messages) return Verdict::Held(name, count);
  return Verdict::Violated(
      name, Printable(check.says + ": " + count + ", expected " + std::to_string(check.messages),
                      kQueueExplanationBytes));
}

}  // namespace killpoint
