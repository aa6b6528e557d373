#include "reports/terminal_table.h"

#include <fmt/format.h>

#include <algorithm>

#include "reports/report_model.h"
#include "util/printable.h"

namespace killpoint {
namespace {

const char* ColorOf(InvariantStatus s) {
  switch (s) {
    case InvariantStatus::kHeld:
      return "\033[32m";
    case InvariantStatus::kViolated:
      return "\033[1;31m";
    case InvariantStatus::kShown:
      return "\033[33m";
    case InvariantStatus::kNotDemonstrated:
      return "\033[35m";
    case InvariantStatus::kNotExercised:
      return "\033[1;38;5;208m";  // bold orange: not the red of a violation
  }
  return "";
}

constexpr size_t kColumns = 80;

// `prefix` then `text`, wrapped at spaces to kColumns, later lines indented under the text.
// A word longer than a line (a path) stays whole: cutting it would make it useless.
std::string Wrap(const std::string& prefix, const std::string& text) {
  std::string out = prefix, indent(prefix.size(), ' ');
  size_t column = prefix.size();
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    std::string word = text.substr(start, end - start);
    if (column > indent.size() && column + 1 + word.size() > kColumns) {
      out += "\n" + indent;
      column = indent.size();
    } else if (column > indent.size()) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
    start = end + 1;
  }
  return out + "\n";
}

// The invariant column fits the scenario's longest name (a scenario's own checks have long ones).
size_t NameWidth(const ScenarioResult& s) {
  size_t width = 22;
  for (const InvariantResult& r : s.invariants) width = std::max(width, r.name.size());
  return width;
}

std::string Line(const ScenarioResult& s, const InvariantResult& r, size_t width, bool color) {
  std::string status = ToString(s.StatusOf(r));
  if (color) status = ColorOf(s.StatusOf(r)) + status + "\033[0m";
  std::string kind = r.expectation == kMustHold ? "must hold" : "may break";
  return fmt::format("  {:<{}} {:<10} {:>5}/{:<5} {}\n", r.name, width, kind, r.violated,
                     r.held + r.violated, status);
}

// A job that never ran: why, then its stderr's last lines, as it wrote them (escaped).
std::string NeverRanLines(const ScenarioResult& s) {
  if (!s.NeverRan()) return "";
  std::string out = Wrap("  JOB NEVER RAN: ", s.NeverRanExplanation());
  out +=
      fmt::format("  stderr of trial {}, attempt 1 (last lines):\n", s.start_failures.first_trial);
  for (const std::string& line : s.NeverRanStderr()) out += "    | " + line + "\n";
  return out;
}

// The names that changed between two fault-free runs and the shapes they were planned by
// (plan/unstable_names.h); a point never reached that is one of them says so.
std::string RenamedLines(const ScenarioResult& s) {
  if (s.renamed.empty()) return "";
  constexpr size_t kShown = 3;
  std::string out = "  names that change between runs, planned by their shape:\n";
  for (size_t i = 0; i < s.renamed.size() && i < kShown; ++i) {
    out += Wrap("    ", Printable(s.renamed[i].shape + " (was " + s.renamed[i].name + ")"));
  }
  if (s.renamed.size() > kShown) out += fmt::format("    and {} more\n", s.renamed.size() - kShown);
  for (const std::string& p : s.exercise.NeverReached()) {
    for (const RenamedPoint& r : s.renamed) {
      if (r.name != p) continue;
      out += Wrap("  ", Printable(p +
                                  " never came again: its name changed between two "
                                  "fault-free runs; list it by a pattern, such as " +
                                  r.shape));
      break;
    }
  }
  return out;
}

}  // namespace

std::string RenderTable(const RunResults& results, bool color, std::optional<int> only_trial) {
  std::string out;
  for (const ScenarioResult& s : results.scenarios) {
    out += Wrap("", fmt::format("{} ({} trial{}, {:.1f}s)", s.name, s.trials,
                                s.trials == 1 ? "" : "s", s.elapsed_s));
    if (s.exhaustive_total > 0 && only_trial) {
      out += Wrap(
          "  ", fmt::format(
                    "exhaustive: trial {} alone (--trial), one of {} (crash point, moment, model) "
                    "combinations",
                    *only_trial, s.exhaustive_total));
    } else if (s.exhaustive_total > 0) {
      out += Wrap("  ", "exhaustive: " + s.ExhaustiveCoverage());
    }
    std::string models;
    for (const auto& m : s.ModelsRun()) models += (models.empty() ? "" : ", ") + m;
    out += Wrap("  ",
                "models run: " + (models.empty() ? std::string("none (no kill fired)") : models));
    out += NeverRanLines(s);
    if (std::string why = s.exercise.Explanation(false); !why.empty())
      out += Wrap(s.NotExercised() ? "  NOT EXERCISED: " : "  note: ", why);
    std::string never;
    for (const auto& p : s.exercise.NeverReached()) never += (never.empty() ? "" : ", ") + p;
    if (!never.empty())
      out += Wrap(
          s.exercise.deferred_to_merge ? "  never reached in this shard: " : "  never reached: ",
          never);
    out += RenamedLines(s);
    // A path may come from the job's own arguments: escaped (util/printable.h), one line.
    for (const std::string& note : s.OutsideWriteNotes())
      out += Wrap("  OUTSIDE THE SANDBOX: ", Printable(note));
    if (std::string hint = s.OutsideWriteHint(); !hint.empty()) out += Wrap("  note: ", hint);
    const size_t width = NameWidth(s);
    out +=
        fmt::format("  {:<{}} {:<10} {:>11} {}\n", "invariant", width, "", "violated", "verdict");
    for (const InvariantResult& r : s.invariants) {
      out += Line(s, r, width, color);
      if (r.violated > 0 && !s.ByModel(r).empty()) out += Wrap("    by model: ", s.ByModel(r));
      if (s.StatusOf(r) == InvariantStatus::kViolated && !r.examples.empty()) {
        // The explanation may quote a job's output: escaped (util/printable.h), one line.
        out += Wrap("    e.g. ", Printable(r.examples.front().explanation));
        if (std::string hint = r.Hint(); !hint.empty())
          out += Wrap("    likely cause: ", Printable(hint));
        // Unwrapped, so that it can be copied and pasted as it is.
        out += "    replay: " + r.examples.front().replay + "\n";
        if (!r.examples.front().file.empty())
          out += "        or: killpoint replay " + r.examples.front().file + "\n";
      }
    }
  }
  double rate = results.elapsed_s > 0 ? results.Trials() / results.elapsed_s : 0;
  // The backend only when the run's jobs were intercepted (docs/reports.md).
  std::string interception = InterceptionShown(results.interception);
  std::string totals =
      fmt::format("{} trial{} in {:.1f}s ({:.1f} trials/s), seed {}{}:", results.Trials(),
                  results.Trials() == 1 ? "" : "s", results.elapsed_s, rate, results.seed,
                  interception.empty() ? "" : ", interception " + interception);
  std::string verdict = results.NeverRan()           ? "JOB NEVER RAN: no verdict (see above)"
                        : results.MustHoldViolated() ? "a must-hold invariant was VIOLATED"
                        : results.Refused()
                            ? "NOT EXERCISED: the supervisor refused a call a job made (see above)"
                        : results.NotExercised() ? "NOT EXERCISED: planned kills never fired"
                                                 : "every must-hold invariant held";
  if (!results.partial.empty()) {
    out += "\nPARTIAL RESULTS (" + results.partial +
           "): the same command with --resume finishes the run\n";
  }
  // The verdict is never split: scripts and people look for it whole.
  return out + "\n" + totals + (totals.size() + 1 + verdict.size() <= kColumns ? " " : "\n") +
         verdict + "\n";
}

}  // namespace killpoint
