#include "reports/html_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "reports/html_escape.h"
#include "reports/html_scenario.h"
#include "reports/timeline_svg.h"

namespace killpoint {
namespace {

// No script-src at all: even a job's text that escaped the escaping could not run.
constexpr const char* kPolicy = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

constexpr const char* kStyle = R"(
body{font:15px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1200px;color:#1d1d1f;padding:0 1em}
h1{font-size:1.6em;margin-bottom:.2em}h2{margin-top:2em;border-bottom:1px solid #ddd}h3{margin-bottom:.3em}
.verdict{padding:.8em 1em;border-radius:6px;margin:1em 0}.verdict b{font-size:1.1em}.verdict ul{margin:.4em 0 0}
.ok{background:#e3f6e8;color:#14532d}.bad{background:#fde2e1;color:#7f1d1d}
table{border-collapse:collapse;margin:.6em 0}th,td{border:1px solid #ddd;padding:.3em .6em;text-align:left;vertical-align:top}
th{background:#f5f5f7}tr>th:first-child{white-space:nowrap}.held{background:#e3f6e8}.violated{background:#dc2626;color:#fff;font-weight:600}
.shown{background:#fde68a}.notshown{background:#e9d5ff}.na{color:#aaa}
td.heat{text-align:center;min-width:4.5em}.matrix td{font-size:.9em;min-width:6.5em}th.rot{font-weight:500;font-size:.85em}
code,pre{font:13px ui-monospace,monospace;background:#f5f5f7;border-radius:3px}code{padding:.1em .3em}
pre{padding:.6em;white-space:pre-wrap;word-break:break-all;margin:.3em 0}.meta{color:#555}
.example{border:1px solid #ddd;border-radius:6px;padding:.6em 1em;margin:1em 0}
.example h4{margin:.2em 0 .4em}.scroll{overflow-x:auto}
svg.timeline{display:block;font:11px system-ui,sans-serif}svg.mark .q{font:700 11px system-ui,sans-serif}svg .t{font-weight:600}svg .w{fill:#6b7280}
svg .l{text-anchor:middle;fill:#374151}svg .n{text-anchor:middle;font-size:9px}svg .q{text-anchor:middle;fill:#fff;font-weight:700}
svg .ok{fill:#15803d;font-weight:600}svg .bad{fill:#b91c1c;font-weight:600}svg .lg{fill:#374151}
.legend span{display:inline-block;margin:0 1em .3em 0;white-space:nowrap}.legend svg{vertical-align:middle}
svg .track{stroke:#d1d5db;stroke-width:2}svg .sep{stroke:#e5e7eb;stroke-dasharray:4 3}
details summary{cursor:pointer;color:#374151}
)";

using html::E;

struct Tally {
  std::vector<std::string> violations;  // "<a>scenario</a>: invariant ..." lines, already HTML
  int shown = 0;
  std::vector<std::string> not_shown;
  std::vector<std::string> not_exercised;  // scenarios whose planned kills did not fire
  std::vector<std::string> never_ran;      // scenarios whose job never ran: no verdict
};

Tally Count(const std::vector<ScenarioRef>& scenarios) {
  Tally t;
  for (const ScenarioRef& ref : scenarios) {
    const ScenarioResult& s = ref.result();
    if (s.NeverRan()) {
      t.never_ran.push_back(fmt::format("<a href=\"#{}\">{}</a>: never ran: {}", ref.anchor,
                                        E(s.name), E(s.NeverRanExplanation())));
      continue;
    }
    if (s.NotExercised()) {
      t.not_exercised.push_back(fmt::format("<a href=\"#{}\">{}</a>: {}", ref.anchor, E(s.name),
                                            E(s.exercise.Explanation())));
    }
    for (const InvariantResult& r : s.invariants) {
      std::string where =
          fmt::format("<a href=\"#{}\">{}</a>: <b>{}</b>", ref.anchor, E(s.name), E(r.name));
      switch (r.Status()) {
        case InvariantStatus::kViolated:
          t.violations.push_back(fmt::format("{} violated in {} of {} trials", where, r.violated,
                                             r.held + r.violated));
          break;
        case InvariantStatus::kShown:
          ++t.shown;
          break;
        case InvariantStatus::kNotDemonstrated:
          t.not_shown.push_back(
              fmt::format("{} was expected to break but held in all {} trials", where, r.held));
          break;
        case InvariantStatus::kHeld:
          break;
        case InvariantStatus::kNotExercised:
          break;  // Status() never says it: StatusOf does
      }
    }
  }
  return t;
}

std::string List(const std::vector<std::string>& items) {
  std::string out = "<ul>";
  for (const auto& i : items) out += "<li>" + i + "</li>";
  return out + "</ul>";
}

std::string VerdictBox(const ReportData& report, const std::vector<ScenarioRef>& scenarios) {
  Tally t = Count(scenarios);
  std::string head =
      t.violations.empty()
          ? fmt::format("<b>Every must-hold invariant held</b> in {} trials of {} scenarios.",
                        report.Trials(), scenarios.size())
          : fmt::format(
                "<b>A must-hold invariant was violated</b>: {} violation{} in {} trials of {} "
                "scenarios.",
                t.violations.size(), t.violations.size() == 1 ? "" : "s", report.Trials(),
                scenarios.size());
  if (t.violations.empty() && !t.not_exercised.empty()) {
    head = fmt::format(
        "<b>Not exercised</b>: in {} of {} scenarios planned kills never fired, so their "
        "invariants "
        "were not tested where the scenario said.",
        t.not_exercised.size(), scenarios.size());
  }
  if (!t.never_ran.empty()) {
    head = fmt::format("<b>The job never ran</b> in {} of {} scenarios: no verdict for them.",
                       t.never_ran.size(), scenarios.size());
  }
  bool ok = t.violations.empty() && t.not_exercised.empty() && t.never_ran.empty();
  std::string out = fmt::format("<div class=\"verdict {}\">{}", ok ? "ok" : "bad", head);
  if (!t.never_ran.empty()) out += List(t.never_ran);
  if (!t.violations.empty()) out += List(t.violations);
  if (!t.not_exercised.empty()) out += "<p>Not exercised:</p>" + List(t.not_exercised);
  out += fmt::format("<p>Expected trade-offs: {} shown, {} not demonstrated.</p>", t.shown,
                     t.not_shown.size());
  if (!t.not_shown.empty()) out += List(t.not_shown);
  return out + "</div>\n";
}

std::string Metadata(const ReportData& report) {
  std::string out =
      "<table><tr><th>results</th><th>killpoint</th><th>seed</th><th>trials</th><th>models</"
      "th><th>job commit</th>"
      "<th>started (UTC)</th><th>took</th></tr>\n";
  for (const RunReport& run : report.runs) {
    const RunResults& r = run.results;
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></"
        "td><td>{}</td><td>{:.1f}s</td></tr>\n",
        run.source.empty() ? "this run" : "<code>" + E(run.source) + "</code>",
        E(r.killpoint_version), r.seed, r.Trials(), E(JoinOr(RunModels(r), "none (no kill fired)")),
        E(JoinOr(RunJobCommits(r), "not in a git checkout")), E(r.started_at), r.elapsed_s);
  }
  return out + "</table>\n";
}

const char* CssClass(InvariantStatus s) {
  switch (s) {
    case InvariantStatus::kHeld:
      return "held";
    case InvariantStatus::kViolated:
      return "violated";
    case InvariantStatus::kShown:
      return "shown";
    case InvariantStatus::kNotDemonstrated:
      return "notshown";
    case InvariantStatus::kNotExercised:
      return "violated";
  }
  return "";
}

std::string Cell(const ScenarioResult& s, const InvariantResult& r) {
  std::string by_model = r.violated > 0 ? s.ByModel(r) : "";
  // The status says the expectation too: only must-hold invariants are "held" or "VIOLATED".
  return fmt::format("<td class=\"{}\">{}<br><small>{}/{}{}</small></td>", CssClass(s.StatusOf(r)),
                     E(ToString(s.StatusOf(r))), r.violated, r.held + r.violated,
                     by_model.empty() ? "" : "<br>" + E(by_model));
}

// Strategies (scenarios) x invariants; invariants in the order they first appear.
std::string Matrix(const std::vector<ScenarioRef>& scenarios) {
  std::vector<std::string> names;
  for (const ScenarioRef& ref : scenarios) {
    for (const auto& r : ref.result().invariants) {
      if (std::find(names.begin(), names.end(), r.name) == names.end()) names.push_back(r.name);
    }
  }
  std::string out =
      "<div class=\"scroll\"><table class=\"matrix\"><tr><th>scenario "
      "<small>(violations/trials)</small></th>";
  for (const auto& n : names) out += "<th>" + E(n) + "</th>";
  out += "</tr>\n";
  for (const ScenarioRef& ref : scenarios) {
    const ScenarioResult& s = ref.result();
    out += fmt::format("<tr><th><a href=\"#{}\">{}</a></th>", ref.anchor, E(s.name));
    for (const auto& n : names) {
      auto it = std::find_if(s.invariants.begin(), s.invariants.end(),
                             [&](auto& r) { return r.name == n; });
      out += it == s.invariants.end() ? "<td class=\"na\">-</td>" : Cell(s, *it);
    }
    out += "</tr>\n";
  }
  return out + "</table></div>\n";
}

}  // namespace

std::string RenderHtml(const ReportData& report) {
  std::vector<ScenarioRef> scenarios = Scenarios(report);
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">"
      "<meta name=\"viewport\" content=\"width=device-width\">"
      "<title>killpoint report</title><style>{}</style></head><body>\n<h1>killpoint report</h1>\n",
      kPolicy, kStyle);
  for (const RunReport& run : report.runs) {
    if (run.results.partial.empty()) continue;
    out += fmt::format(
        "<div class=\"verdict bad\"><b>Partial results</b> ({}): {} trials finished; the same "
        "<code>killpoint "
        "run</code> command with <code>--resume</code> finishes the run.</div>\n",
        E(run.results.partial), run.results.Trials());
  }
  out += VerdictBox(report, scenarios);
  out += "<h2>Runs</h2>\n" + Metadata(report);
  out += "<h2>Strategies &times; invariants</h2>\n" + Matrix(scenarios);
  out += "<p class=\"legend\">Timeline marks: " + RenderTimelineLegend() + "</p>\n";
  for (const ScenarioRef& s : scenarios) out += RenderScenarioSection(s);
  return out + "</body></html>\n";
}

std::string RenderHtml(const RunResults& results) { return RenderHtml(SingleRunReport(results)); }

}  // namespace killpoint
