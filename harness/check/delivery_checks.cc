// one_delivery_per_key: no business key (the body's "key" of POST /publish: a refund per
// order, a fulfilment per order) was delivered more than once. no_double_publish asks the same
// per business date; a job that publishes several keys a date needs this one.
#include "check/checker.h"
#include "history/event_registry.h"

namespace killpoint {
namespace {

Verdict OneDeliveryPerKey(const CheckInput& in) {
  const std::string name = "one_delivery_per_key";
  std::map<std::string, std::vector<const Event*>> by_key;
  for (const auto& e : in.events) {
    if (e.type == event::Publish::kType && Read<event::Publish>(e).committed)
      by_key[Read<event::Publish>(e).key].push_back(&e);
  }
  for (const auto& [key, deliveries] : by_key) {
    if (deliveries.size() < 2) continue;
    std::string story;
    for (size_t i = 0; i < deliveries.size() && i < 3; ++i) {
      const Event& e = *deliveries[i];
      const event::Publish p = Read<event::Publish>(e);
      const std::string& header = p.idempotency_key;
      story += std::string(i == 0 ? "" : "; ") + "delivery " + std::to_string(p.delivery_id) +
               " (run " + std::to_string(e.trigger) + " attempt " + std::to_string(e.attempt) +
               (header.empty() ? ", no Idempotency-Key" : ", Idempotency-Key " + header) + ")";
    }
    std::string date = deliveries.front()->biz_date;
    return Verdict::Violated(name, date + ": " + key + " was delivered " +
                                       std::to_string(deliveries.size()) + " times: " + story);
  }
  return Verdict::Held(name, std::to_string(by_key.size()) + " keys, each delivered at most once");
}

}  // namespace

void AddDeliveryCheckers(std::map<std::string, Checker>& out) {
  out["one_delivery_per_key"] = OneDeliveryPerKey;
}

}  // namespace killpoint
