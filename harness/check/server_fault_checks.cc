// server_kill_loses_nothing (docs/services.md, "Server faults"): every server kill of the trial
// left the restarted server with all it held before the kill. Read from the history's
// server_fault events, which compare the service's data before the kill and after the restart.
#include "check/checker.h"
#include "history/event_registry.h"
#include "scenario/vocabulary.h"

namespace killpoint {
namespace {

// "2026-11-01#1 a1: service db (postgres, fast) killed at after_commit#1".
std::string KilledWhere(const Event& e, const event::ServerFault& f) {
  return e.biz_date + "#" + std::to_string(e.trigger) + " a" + std::to_string(e.attempt) +
         ": service " + f.service + " (" + f.kind + ", " + f.durability + ") killed at " + f.point +
         "#" + std::to_string(f.hit);
}

Result<Verdict> ServerKillLosesNothing(const CheckInput& in) {
  const std::string name = kServerKillLosesNothing;
  int kills = 0;
  int64_t held = 0;
  for (const Event& e : in.events) {
    auto f = As<event::ServerFault>(e);
    if (!f || f->action != ServerAction::kKill) continue;
    ++kills;
    if (!f->error.empty()) {
      return Verdict::Violated(
          name, KilledWhere(e, *f) + ": its data could not be compared: " + f->error);
    }
    int64_t lost = f->lost.value_or(0);
    int64_t before = f->before.value_or(0);
    if (lost > 0) {
      std::string sample;
      for (const std::string& m : f->missing.value_or(std::vector<std::string>{}))
        sample += (sample.empty() ? "" : "; ") + m;
      return Verdict::Violated(name, KilledWhere(e, *f) + ", lost " + std::to_string(lost) +
                                         " of " + std::to_string(before) +
                                         " rows or keys it held before the kill: " + sample);
    }
    held += before;
  }
  if (kills == 0) return Verdict::Held(name, "no server was killed in this trial");
  return Verdict::Held(name, std::to_string(kills) + " server kill(s), " + std::to_string(held) +
                                 " rows or keys held before them, none lost");
}

}  // namespace

void AddServerFaultCheckers(std::map<std::string, Checker>& out) {
  out[kServerKillLosesNothing] = ServerKillLosesNothing;
}

}  // namespace killpoint
