#include "reports/markdown_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "reports/diff_report.h"
#include "reports/html_escape.h"

namespace killpoint {
namespace {

const char* VerdictText(InvariantStatus s) {
  switch (s) {
    case InvariantStatus::kHeld:
      return "\u2705 held";
    case InvariantStatus::kViolated:
      return "\u274C **VIOLATED**";
    case InvariantStatus::kShown:
      return "\u26A0\uFE0F expected, shown";
    case InvariantStatus::kNotDemonstrated:
      return "\u2796 expected, not demonstrated";
    case InvariantStatus::kNotExercised:
      return "\U0001F7E0 **NOT EXERCISED**";  // an orange circle: not a violation's red cross
  }
  return "";
}

// The longest run of backticks in `text`: a fence one longer cannot be closed inside it.
size_t LongestBacktickRun(const std::string& text) {
  size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return longest;
}

std::string RunLine(const RunReport& run, const std::vector<ScenarioRef>& scenarios) {
  size_t n = std::count_if(scenarios.begin(), scenarios.end(),
                           [&](const ScenarioRef& s) { return s.run == &run; });
  const RunResults& r = run.results;
  std::vector<std::string> commits = RunJobCommits(r);
  // The backend only when the run's jobs were intercepted (docs/reports.md).
  std::string interception = InterceptionShown(r.interception);
  return fmt::format(
      "- {} of {} \u00B7 seed {} \u00B7 models {}{} \u00B7 killpoint {}{} \u00B7 "
      "started {} \u00B7 {:.1f}s{}\n",
      Plural(r.Trials(), "trial"), Plural(n, "scenario"), r.seed,
      MarkdownEscape(JoinOr(RunModels(r), "none (no kill fired)")),
      interception.empty() ? "" : " \u00B7 interception " + MarkdownEscape(interception),
      MarkdownEscape(r.killpoint_version),
      commits.empty() ? "" : " \u00B7 job " + MarkdownEscape(JoinOr(commits, "")),
      MarkdownEscape(r.started_at), r.elapsed_s,
      run.source.empty() ? "" : " \u00B7 " + MarkdownEscape(run.source));
}

std::string TableRow(const ScenarioResult& s, const InvariantResult& r, bool first) {
  return fmt::format("| {} | {} | {} | {}/{} | {} |\n", first ? MarkdownEscape(s.name) : "",
                     MarkdownEscape(r.name),
                     r.expectation == kMustHold ? "must hold" : "expected to break", r.violated,
                     r.held + r.violated, VerdictText(s.StatusOf(r)));
}

constexpr const char* kTableHead =
    "| scenario | invariant | expectation | violated | verdict |\n| --- | --- | --- | ---: | --- "
    "|\n";

// Every scenario's invariants: folded, the summary leads with what needs a look.
std::string Table(const std::vector<ScenarioRef>& scenarios) {
  size_t results = 0;
  std::string rows;
  for (const ScenarioRef& ref : scenarios) {
    const ScenarioResult& s = ref.result();
    bool first = true;
    for (const InvariantResult& r : s.invariants) {
      rows += TableRow(s, r, first);
      first = false;
      ++results;
    }
  }
  return fmt::format(
      "\n<details><summary>Every invariant of every scenario ({})</summary>\n\n{}{}\n</details>\n",
      Plural(results, "result"), kTableHead, rows);
}

// What needs a look, worst first: must-hold violations, invariants not exercised, trade-offs
// that were expected but not demonstrated. Held invariants and shown trade-offs are counted in
// one line; the folded table has them.
std::string NeedsALook(const std::vector<ScenarioRef>& scenarios) {
  std::map<InvariantStatus, int> count;
  std::string rows;
  for (InvariantStatus wanted : {InvariantStatus::kViolated, InvariantStatus::kNotExercised,
                                 InvariantStatus::kNotDemonstrated}) {
    for (const ScenarioRef& ref : scenarios) {
      const ScenarioResult& s = ref.result();
      for (const InvariantResult& r : s.invariants) {
        if (s.StatusOf(r) == wanted) rows += TableRow(s, r, true);
      }
    }
  }
  for (const ScenarioRef& ref : scenarios) {
    for (const InvariantResult& r : ref.result().invariants) ++count[ref.result().StatusOf(r)];
  }
  std::string tally = fmt::format(
      "**{} in {}**: {} held, {} violated, {} not exercised, {} expected trade-off{} shown, {} "
      "not demonstrated.\n",
      Plural(count[InvariantStatus::kHeld] + count[InvariantStatus::kViolated] +
                 count[InvariantStatus::kNotExercised] + count[InvariantStatus::kShown] +
                 count[InvariantStatus::kNotDemonstrated],
             "invariant result"),
      Plural(scenarios.size(), "scenario"), count[InvariantStatus::kHeld],
      count[InvariantStatus::kViolated], count[InvariantStatus::kNotExercised],
      count[InvariantStatus::kShown], count[InvariantStatus::kShown] == 1 ? "" : "s",
      count[InvariantStatus::kNotDemonstrated]);
  if (rows.empty()) return "\n" + tally;
  return "\n" + tally + "\n### Needs a look\n\n" + kTableHead + rows;
}

struct Pick {
  const ScenarioResult* scenario;
  const InvariantResult* invariant;
};

// Must-hold violations first (the gate failed on them), then the trade-offs that were shown.
std::vector<Pick> TopCounterexamples(const std::vector<ScenarioRef>& scenarios) {
  std::vector<Pick> out;
  for (InvariantStatus wanted : {InvariantStatus::kViolated, InvariantStatus::kShown}) {
    for (const ScenarioRef& ref : scenarios) {
      for (const InvariantResult& r : ref.result().invariants) {
        if (ref.result().StatusOf(r) == wanted && !r.examples.empty())
          out.push_back({&ref.result(), &r});
      }
    }
  }
  return out;
}

// Every scenario whose planned faults did not all happen, and why: a not-exercised one in view
// (it fails the gate), the others, notes, folded.
std::string Exercise(const std::vector<ScenarioRef>& scenarios) {
  std::string failing, notes;
  size_t noted = 0;
  for (const ScenarioRef& ref : scenarios) {
    const ScenarioResult& s = ref.result();
    if (s.exercise.Explanation().empty()) continue;
    std::string line =
        fmt::format("- {}**{}**: {}\n", s.NotExercised() ? "\U0001F7E0 not exercised: " : "",
                    MarkdownEscape(s.name), MarkdownEscape(s.exercise.Explanation()));
    (s.NotExercised() ? failing : notes) += line;
    noted += !s.NotExercised();
  }
  if (failing.empty() && notes.empty()) return "";
  std::string out = "\n### Planned faults that never happened\n\n" + failing;
  if (!notes.empty()) {
    out += fmt::format(
        "{}<details><summary>{} that passed {} threshold all the same</summary>\n\n{}\n</details>"
        "\n",
        failing.empty() ? "" : "\n", Plural(noted, "scenario"), noted == 1 ? "its" : "their",
        notes);
  }
  return out;
}

// Every scenario whose job never ran: why, and its stderr's last lines.
std::string NeverRan(const std::vector<ScenarioRef>& scenarios) {
  std::string out;
  for (const ScenarioRef& ref : scenarios) {
    const ScenarioResult& s = ref.result();
    if (!s.NeverRan()) continue;
    out += fmt::format("- \u274C **{}** never ran: {}\n\n", MarkdownEscape(s.name),
                       MarkdownEscape(s.NeverRanExplanation()));
    std::string stderr_tail;
    for (const std::string& line : s.NeverRanStderr()) {
      stderr_tail += (stderr_tail.empty() ? "" : "\n") + line;
    }
    out += MarkdownCodeBlock(stderr_tail, "text", "  ");
  }
  return out.empty() ? "" : "\n### Jobs that never ran (no verdict)\n\n" + out;
}

// Every scenario whose trials wrote outside their sandbox, one line a path.
std::string OutsideWrites(const std::vector<ScenarioRef>& scenarios) {
  std::string out;
  for (const ScenarioRef& ref : scenarios) {
    const ScenarioResult& s = ref.result();
    for (const std::string& note : s.OutsideWriteNotes()) {
      out +=
          fmt::format("- \u26A0\uFE0F **{}**: {}\n", MarkdownEscape(s.name), MarkdownEscape(note));
    }
    if (std::string hint = s.OutsideWriteHint(); !hint.empty()) {
      out += fmt::format("- **{}**: {}\n", MarkdownEscape(s.name), MarkdownEscape(hint));
    }
  }
  return out.empty() ? "" : "\n### Writes outside the sandbox\n\n" + out;
}

// The top counterexamples, must-hold ones in view, the expected trade-offs' folded.
std::string Counterexamples(const std::vector<ScenarioRef>& scenarios) {
  std::vector<Pick> picks = TopCounterexamples(scenarios);
  if (picks.empty()) return "";
  std::string out;
  bool folded = false;
  for (size_t i = 0; i < picks.size() && i < kMarkdownTopCounterexamples; ++i) {
    bool must = picks[i].invariant->expectation == kMustHold;
    if (i == 0 && must) out += "\n### Counterexamples\n\n";
    if (!must && !folded) {
      out += "\n<details><summary>Counterexamples of the expected trade-offs</summary>\n\n";
      folded = true;
    }
    const Counterexample& c = picks[i].invariant->examples.front();
    out += fmt::format(
        "**{}** \u00B7 {} ({}) \u00B7 trial {}: {}\n\n", MarkdownEscape(picks[i].scenario->name),
        MarkdownCode(picks[i].invariant->name),
        picks[i].invariant->expectation == kMustHold ? "must hold" : "expected to break", c.trial,
        MarkdownEscape(c.explanation));
    if (std::string hint = picks[i].invariant->Hint(); !hint.empty())
      out += "Likely cause: " + MarkdownEscape(hint) + "\n\n";
    out += MarkdownCodeBlock(c.ReplayCommands()) + "\n";
  }
  if (picks.size() > kMarkdownTopCounterexamples) {
    out += fmt::format("...and {} more in the HTML report.\n",
                       picks.size() - kMarkdownTopCounterexamples);
  }
  return folded ? out + "\n</details>\n" : out;
}

}  // namespace

std::string MarkdownCode(const std::string& text) {
  std::string clean = SanitizeText(text);
  for (char& c : clean) {
    if (c == '\n' || c == '\t' || c == '\r') c = ' ';
  }
  std::string fence(LongestBacktickRun(clean) + 1, '`');
  bool pad = !clean.empty() && (clean.front() == '`' || clean.back() == '`');
  return fence + (pad ? " " : "") + clean + (pad ? " " : "") + fence;
}

std::string MarkdownCodeBlock(const std::string& text, const std::string& language,
                              const std::string& indent) {
  std::string clean = SanitizeText(text);
  std::string fence(std::max<size_t>(3, LongestBacktickRun(clean) + 1), '`');
  std::string out = indent + fence + language + "\n";
  for (size_t start = 0; !clean.empty() && start <= clean.size();) {
    size_t end = clean.find('\n', start);
    if (end == std::string::npos) end = clean.size();
    out += indent + clean.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out + indent + fence + "\n";
}

std::string MarkdownEscape(const std::string& text) {
  std::string out;
  for (char c : SanitizeText(text)) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;  // entities: no HTML tag gets through
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '\n':
      case '\r':
        out += ' ';
        break;
      default:
        if (std::string_view("\\`*_[]|~#!").find(c) != std::string_view::npos) out += '\\';
        out += c;
    }
  }
  return out;
}

std::string RenderMarkdown(const ReportData& report) {
  std::vector<ScenarioRef> scenarios = Scenarios(report);
  std::string verdict =
      report.NeverRan() ? "## killpoint: \u274C a scenario's job never ran (no verdict)\n\n"
      : report.MustHoldViolated() ? "## killpoint: \u274C a must-hold invariant was violated\n\n"
      : report.NotExercised()
          ? "## killpoint: \U0001F7E0 a scenario was not exercised (see below)\n\n"
      : report.Partial() ? "## killpoint: \u23F8\uFE0F interrupted: no must-hold invariant was "
                           "violated in the finished trials (partial results)\n\n"
                         : "## killpoint: \u2705 every must-hold invariant held\n\n";
  // With a baseline, the changes lead; the verdict of the run alone follows as a line.
  std::string out = verdict;
  if (report.baseline) {
    out = "## killpoint against the baseline\n\n" + RenderDiffMarkdown(*report.baseline) +
          "\n### This run alone: " + verdict.substr(verdict.find(": ") + 2);
  }
  for (const RunReport& run : report.runs) out += RunLine(run, scenarios);
  for (const RunReport& run : report.runs) {
    if (run.results.partial.empty()) continue;
    out += fmt::format(
        "\n> **Partial results** ({}): {} finished; the same `killpoint run` command with "
        "`--resume` finishes the run.\n",
        MarkdownEscape(run.results.partial), Plural(run.results.Trials(), "trial"));
  }
  return out + NeverRan(scenarios) + NeedsALook(scenarios) + Exercise(scenarios) +
         OutsideWrites(scenarios) + Counterexamples(scenarios) + Table(scenarios);
}

}  // namespace killpoint
