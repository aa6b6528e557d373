// no_double_publish, no_loss and no_silent_loss, over the downstream's requests in the history.
#include "check/checker.h"
#include "history/event_registry.h"
#include "util/printable.h"

namespace killpoint {
namespace {

// A delivery the downstream committed (deduplicated requests and failures are not deliveries).
struct Delivery {
  int64_t id;
  int attempt;
  int trigger;
};

// The date a publish or an alert named, else its attempt's.
template <class Request>
std::string DateOf(const Event& e, const Request& r) {
  return r.biz_date.empty() ? e.biz_date : r.biz_date;
}

std::map<std::string, std::vector<Delivery>> DeliveriesByDate(const std::vector<Event>& events) {
  std::map<std::string, std::vector<Delivery>> out;
  for (const auto& e : events) {
    auto p = As<event::Publish>(e);
    if (!p || !p->committed) continue;
    out[DateOf(e, *p)].push_back({p->delivery_id, e.attempt, e.trigger});
  }
  return out;
}

std::string Describe(const std::vector<Delivery>& ds) {
  std::string ids, attempts;
  for (size_t i = 0; i < ds.size(); ++i) {
    std::string sep = i == 0 ? "" : (i + 1 == ds.size() ? " and " : ", ");
    ids += sep + std::to_string(ds[i].id);
    attempts +=
        sep + "run " + std::to_string(ds[i].trigger) + " attempt " + std::to_string(ds[i].attempt);
  }
  return "deliveries " + ids + " (from " + attempts + ")";
}

Verdict NoDoublePublish(const CheckInput& in) {
  for (const auto& [date, ds] : DeliveriesByDate(in.events)) {
    if (ds.size() > 1) {
      return Verdict::Violated(
          "no_double_publish",
          date + " was published " + std::to_string(ds.size()) + " times: " + Describe(ds));
    }
  }
  return Verdict::Held("no_double_publish", "no date was delivered more than once");
}

// The last exit of the date's attempts, to say why nothing was delivered.
std::string LastExit(const CheckInput& in, const std::string& date) {
  for (auto it = in.events.rbegin(); it != in.events.rend(); ++it) {
    if (it->type != event::Exit::kType || it->biz_date != date) continue;
    const event::Exit exit = Read<event::Exit>(*it);
    std::string err = Printable(LinesJoined(exit.stderr_tail), 160);
    return "its last attempt exited with code " + std::to_string(exit.code) +
           (err.empty() ? "" : " (stderr: " + err + ")");
  }
  return "it never ran";
}

bool Alerted(const CheckInput& in, const std::string& date) {
  for (const auto& e : in.events) {
    if (auto a = As<event::Alert>(e); a && DateOf(e, *a) == date) return true;
  }
  return false;
}

Verdict NoLoss(const CheckInput& in) {
  auto delivered = DeliveriesByDate(in.events);
  for (const auto& date : in.Dates()) {
    if (delivered[date].empty()) {
      std::string alerted = Alerted(in, date) ? "; a human was alerted" : "";
      return Verdict::Violated("no_loss",
                               date + " was never delivered: " + LastExit(in, date) + alerted);
    }
  }
  return Verdict::Held("no_loss", "every date was delivered at least once");
}

Verdict NoSilentLoss(const CheckInput& in) {
  auto delivered = DeliveriesByDate(in.events);
  for (const auto& date : in.Dates()) {
    if (delivered[date].empty() && !Alerted(in, date)) {
      return Verdict::Violated("no_silent_loss",
                               date + " was neither delivered nor alerted: " + LastExit(in, date));
    }
  }
  return Verdict::Held("no_silent_loss", "every date was delivered or alerted");
}

}  // namespace

void AddPublishCheckers(std::map<std::string, Checker>& out) {
  out["no_double_publish"] = NoDoublePublish;
  out["no_loss"] = NoLoss;
  out["no_silent_loss"] = NoSilentLoss;
}

}  // namespace killpoint
