// writes_in_sandbox: the job changed no file outside its sandbox (docs/syscall-shim.md, "Writes
// outside the sandbox"). The shim reports such writes; the runner records each attempt's in an
// outside_writes event. Where the shim is not loaded nothing is seen, and the scenario that
// names this invariant loads it (Scenario::LoadsShim).
#include "check/checker.h"
#include "history/event_registry.h"
#include "history/outside_write.h"
#include "scenario/vocabulary.h"

namespace killpoint {
namespace {

std::string AttemptOf(const Event& e) {
  if (e.biz_date.empty()) return "the final pass";
  return "attempt " + std::to_string(e.attempt) + " of " + e.biz_date;
}

Result<Verdict> WritesInSandbox(const CheckInput& in) {
  const Event* first = nullptr;
  std::vector<OutsideWrite> writes;
  for (const Event& e : in.events) {
    if (auto o = As<event::OutsideWrites>(e); o && !o->writes.empty()) {
      first = &e;
      writes = o->writes;
      break;
    }
  }
  if (first == nullptr)
    return Verdict::Held(kWritesInSandbox, "no file changed outside the sandbox");
  size_t total = OutsideWritesOf(in.events).size();
  std::string more = total > 1 ? " (" + std::to_string(total - 1) + " more path" +
                                     (total > 2 ? "s" : "") + " in this trial)"
                               : "";
  return Verdict::Violated(kWritesInSandbox,
                           AttemptOf(*first) + " wrote " + Describe(writes.front()) +
                               " outside its sandbox: " + OutsideConsequence(writes.front().kind) +
                               more);
}

}  // namespace

void AddSandboxCheckers(std::map<std::string, Checker>& out) {
  out[kWritesInSandbox] = WritesInSandbox;
}

}  // namespace killpoint
