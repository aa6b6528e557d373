#include "reports/terminal_table.h"

#include <fmt/format.h>

namespace killpoint {
namespace {

const char* ColorOf(InvariantStatus s) {
  switch (s) {
    case InvariantStatus::kHeld: return "\033[32m";
    case InvariantStatus::kViolated: return "\033[1;31m";
    case InvariantStatus::kShown: return "\033[33m";
    case InvariantStatus::kNotDemonstrated: return "\033[35m";
  }
  return "";
}

std::string Line(const InvariantResult& r, bool color) {
  std::string status = ToString(r.Status());
  if (color) status = ColorOf(r.Status()) + status + "\033[0m";
  std::string kind = r.expectation == kMustHold ? "must hold" : "may break";
  return fmt::format("  {:<22} {:<10} {:>5}/{:<5} {}\n", r.name, kind, r.violated, r.held + r.violated,
                     status);
}

}  // namespace

std::string RenderTable(const RunResults& results, bool color) {
  std::string out;
  for (const ScenarioResult& s : results.scenarios) {
    out += fmt::format("{} ({} trials, {:.1f}s)\n", s.name, s.trials, s.elapsed_s);
    if (s.exhaustive_total > 0) {
      out += fmt::format("  exhaustive: {} of {} (crash point, moment, model) combinations tried{}\n",
                         s.trials, s.exhaustive_total, s.trials < s.exhaustive_total ? " (--limit)" : ", all");
    }
    out += fmt::format("  {:<22} {:<10} {:>11} {}\n", "invariant", "", "violated", "verdict");
    for (const InvariantResult& r : s.invariants) {
      out += Line(r, color);
      if (r.violated > 0 && !s.ByModel(r).empty()) out += "    by model: " + s.ByModel(r) + "\n";
      if (r.Status() == InvariantStatus::kViolated && !r.examples.empty()) {
        out += "    e.g. " + r.examples.front().explanation + "\n";
        out += "    replay: " + r.examples.front().replay + "\n";
      }
    }
  }
  double rate = results.elapsed_s > 0 ? results.Trials() / results.elapsed_s : 0;
  out += fmt::format("\n{} trials in {:.1f}s ({:.1f} trials/s), seed {}: {}\n", results.Trials(),
                     results.elapsed_s, rate, results.seed,
                     results.MustHoldViolated() ? "a must-hold invariant was VIOLATED"
                                                : "every must-hold invariant held");
  return out;
}

}  // namespace killpoint
