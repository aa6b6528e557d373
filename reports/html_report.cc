#include "reports/html_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "reports/diff_report.h"
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
.shown{background:#fde68a}.notexercised{background:#fed7aa;color:#7c2d12;font-weight:600;outline:2px dashed #c2410c;outline-offset:-2px}.warn{background:#ffedd5;color:#7c2d12}.notshown{background:#e9d5ff}.na{color:#aaa}
td.heat{text-align:center;min-width:4.5em}.matrix td{font-size:.9em;min-width:8em;max-width:18em}th.rot{font-weight:500;font-size:.85em}
.matrix th.name{position:sticky;left:0;z-index:1;background:#fff;white-space:nowrap}.matrix tr.fam th{background:#eef2f7;border-top:2px solid #94a3b8}
.matrix .inv{font:12px ui-monospace,monospace;font-weight:400;white-space:nowrap}.wide{margin:0 calc(50% - 50vw + 1em)}.matrix td.violated .inv{color:#fff}
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
  int violating_trials = 0;             // summed over those invariants: a trial may count twice
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
          t.violating_trials += r.violated;
          break;
        case InvariantStatus::kShown:
          ++t.shown;
          break;
        case InvariantStatus::kNotDemonstrated:
          t.not_shown.push_back(
              fmt::format("{} was expected to break but held in {}", where, AllTrials(r.held)));
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
  std::string trials = Plural(report.Trials(), "trial");
  std::string of = Plural(scenarios.size(), "scenario");
  std::string head =
      t.violations.empty()
          ? fmt::format("<b>Every must-hold invariant held</b> in {} of {}.", trials, of)
          : fmt::format("<b>A must-hold invariant was violated</b>: {}, violated {} over {} of {}.",
                        Plural(t.violations.size(), "invariant"),
                        t.violating_trials == 1 ? std::string("once")
                                                : fmt::format("{} times", t.violating_trials),
                        trials, of);
  if (t.violations.empty() && report.Partial()) {
    head = fmt::format(
        "<b>Interrupted</b>: no must-hold invariant was violated in the {} that finished, of {} "
        "(partial results: the rest never ran).",
        trials, of);
  }
  if (t.violations.empty() && !t.not_exercised.empty()) {
    head = fmt::format(
        "<b>Not exercised</b>: in {} of {} planned kills never fired, so their invariants were "
        "not tested where the scenario said.",
        t.not_exercised.size(), of);
  }
  if (!t.never_ran.empty()) {
    head = fmt::format("<b>The job never ran</b> in {} of {} scenarios: no verdict for them.",
                       t.never_ran.size(), scenarios.size());
  }
  bool ok =
      t.violations.empty() && t.not_exercised.empty() && t.never_ran.empty() && !report.Partial();
  // Not exercised alone is orange: the gate fails (exit 4), but nothing was found broken.
  const char* box = ok ? "ok" : t.violations.empty() && t.never_ran.empty() ? "warn" : "bad";
  std::string out = fmt::format("<div class=\"verdict {}\">{}", box, head);
  if (!t.never_ran.empty()) out += List(t.never_ran);
  if (!t.violations.empty()) out += List(t.violations);
  if (!t.not_exercised.empty()) out += "<p>Not exercised:</p>" + List(t.not_exercised);
  out += fmt::format("<p>Expected trade-offs: {} shown, {} not demonstrated.</p>", t.shown,
                     t.not_shown.size());
  if (!t.not_shown.empty()) out += List(t.not_shown);
  return out + "</div>\n";
}

// The runs' metadata. The interception column only when a run of the report intercepted
// its jobs (docs/reports.md): a run that needed none claims none.
std::string Metadata(const ReportData& report) {
  bool intercepted = std::any_of(report.runs.begin(), report.runs.end(), [](const RunReport& run) {
    return Intercepted(run.results.interception);
  });
  std::string out = fmt::format(
      "<table><tr><th>results</th><th>killpoint</th><th>seed</th><th>trials</th><th>models</"
      "th>{}<th>job commit</th>"
      "<th>started (UTC)</th><th>took</th></tr>\n",
      intercepted ? "<th>interception</th>" : "");
  for (const RunReport& run : report.runs) {
    const RunResults& r = run.results;
    std::string interception;
    if (intercepted) {
      interception = InterceptionShown(r.interception);
      if (interception.empty()) interception = r.interception.empty() ? "unknown" : "none";
      interception = "<td>" + E(interception) + "</td>";
    }
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>{}<td><code>{}</code></"
        "td><td>{}</td><td>{:.1f}s</td></tr>\n",
        run.source.empty() ? "this run" : "<code>" + E(run.source) + "</code>",
        E(r.killpoint_version), r.seed, r.Trials(), E(JoinOr(RunModels(r), "none (no kill fired)")),
        interception, E(JoinOr(RunJobCommits(r), "not in a git checkout")), E(r.started_at),
        r.elapsed_s);
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
      return "notexercised";  // not the red of a violation: nothing was found, nothing tested
  }
  return "";
}

// A cell names its invariant: a row holds only the scenario's own invariants, so columns do
// not line up by invariant across scenarios of different kinds.
std::string Cell(const ScenarioResult& s, const InvariantResult& r) {
  std::string by_model = r.violated > 0 ? s.ByModel(r) : "";
  // The status says the expectation too: only must-hold invariants are "held" or "VIOLATED".
  return fmt::format(
      "<td class=\"{}\" title=\"{}: {}\"><span class=\"inv\">{}</span><br>{} "
      "<small>{}/{}{}</small></td>",
      CssClass(s.StatusOf(r)), E(r.name), E(ToString(s.StatusOf(r))), E(r.name),
      E(ToString(s.StatusOf(r))), r.violated, r.held + r.violated,
      by_model.empty() ? "" : "<br>" + E(by_model));
}

// Families of scenarios (MatrixFamily), each in the order it first appears.
std::vector<std::pair<std::string, std::vector<const ScenarioRef*>>> Families(
    const std::vector<ScenarioRef>& scenarios) {
  std::vector<std::pair<std::string, std::vector<const ScenarioRef*>>> out;
  for (const ScenarioRef& ref : scenarios) {
    std::string family = MatrixFamily(ref.result().name);
    auto it = std::find_if(out.begin(), out.end(), [&](auto& f) { return f.first == family; });
    if (it == out.end()) it = out.insert(out.end(), {family, {}});
    it->second.push_back(&ref);
  }
  return out;
}

// The invariants of a family in the order they first appear: a row's cells follow it, so that
// scenarios of one family that check the same invariants line them up.
std::vector<std::string> FamilyOrder(const std::vector<const ScenarioRef*>& family) {
  std::vector<std::string> names;
  for (const ScenarioRef* ref : family) {
    for (const auto& r : ref->result().invariants) {
      if (std::find(names.begin(), names.end(), r.name) == names.end()) names.push_back(r.name);
    }
  }
  return names;
}

std::string FamilyHeader(const std::string& family, const std::vector<const ScenarioRef*>& refs,
                         size_t columns) {
  size_t failing = std::count_if(refs.begin(), refs.end(), [](const ScenarioRef* r) {
    return r->result().MustHoldViolated() || r->result().NotExercised();
  });
  std::string state = failing == 0 ? "all passed" : fmt::format("{} failing", failing);
  return fmt::format(
      "<tr class=\"fam\"><th class=\"name\">{}</th><th colspan=\"{}\"><small>{} "
      "scenario{}, {}</small></th></tr>\n",
      E(family), std::max<size_t>(columns, 1), refs.size(), refs.size() == 1 ? "" : "s", state);
}

// Strategies (scenarios) x invariants, grouped by family; a row shows only its scenario's own
// invariants; the name column stays in view while the table scrolls sideways.
std::string Matrix(const std::vector<ScenarioRef>& scenarios) {
  size_t columns = 0;
  for (const ScenarioRef& ref : scenarios)
    columns = std::max(columns, ref.result().invariants.size());
  std::string out =
      "<div class=\"scroll wide\"><table class=\"matrix\"><tr><th class=\"name\">scenario</th>"
      "<th colspan=\"" +
      std::to_string(std::max<size_t>(columns, 1)) +
      "\">its invariants <small>(verdict, violations/trials)</small></th></tr>\n";
  for (const auto& [family, refs] : Families(scenarios)) {
    out += FamilyHeader(family, refs, columns);
    std::vector<std::string> order = FamilyOrder(refs);
    for (const ScenarioRef* ref : refs) {
      const ScenarioResult& s = ref->result();
      // Under its family's heading, "publish/execute-then-mark" reads "execute-then-mark".
      std::string shown =
          s.name.starts_with(family + "/") ? s.name.substr(family.size() + 1) : s.name;
      out += fmt::format("<tr><th class=\"name\" title=\"{}\"><a href=\"#{}\">{}</a></th>",
                         E(s.name), ref->anchor, E(shown));
      for (const std::string& n : order) {
        auto it = std::find_if(s.invariants.begin(), s.invariants.end(),
                               [&](auto& r) { return r.name == n; });
        if (it != s.invariants.end()) out += Cell(s, *it);
      }
      out += "</tr>\n";
    }
  }
  return out + "</table></div>\n";
}

}  // namespace

std::string MatrixFamily(const std::string& scenario) {
  size_t cut = scenario.find('/');
  if (cut == std::string::npos) cut = scenario.find('-');
  return cut == std::string::npos || cut == 0 ? scenario : scenario.substr(0, cut);
}

std::string RenderHtml(const ReportData& report) {
  std::vector<ScenarioRef> scenarios = Scenarios(report);
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">"
      "<meta name=\"viewport\" content=\"width=device-width\">"
      "<title>killpoint report</title><style>{}</style></head><body>\n<h1>killpoint report</h1>\n",
      kPolicy, kStyle);
  // With a baseline, the report leads with what changed, as the Markdown summary does.
  if (report.baseline) out += RenderDiffHtml(*report.baseline);
  for (const RunReport& run : report.runs) {
    if (run.results.partial.empty()) continue;
    out += fmt::format(
        "<div class=\"verdict bad\"><b>Partial results</b> ({}): {} finished; the same "
        "<code>killpoint "
        "run</code> command with <code>--resume</code> finishes the run.</div>\n",
        E(run.results.partial), Plural(run.results.Trials(), "trial"));
  }
  out += VerdictBox(report, scenarios);
  out += "<h2>Runs</h2>\n" + Metadata(report);
  out += "<h2 id=\"matrix\">Strategies &times; invariants</h2>\n" + Matrix(scenarios);
  out += "<p class=\"legend\">Timeline marks: " + RenderTimelineLegend() + "</p>\n";
  for (const ScenarioRef& s : scenarios) out += RenderScenarioSection(s);
  return out + "</body></html>\n";
}

std::string RenderHtml(const RunResults& results) { return RenderHtml(SingleRunReport(results)); }

}  // namespace killpoint
