#include "reports/html_report.h"

#include <fmt/format.h>

#include <set>

#include "reports/html_escape.h"

namespace killpoint {
namespace {

constexpr const char* kStyle = R"(
body{font:15px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#1d1d1f;padding:0 1em}
h1{font-size:1.6em;margin-bottom:.2em} h2{margin-top:2em;border-bottom:1px solid #ddd}
.verdict{padding:.8em 1em;border-radius:6px;font-weight:600;margin:1em 0}
.ok{background:#e3f6e8;color:#14532d}.bad{background:#fde2e1;color:#7f1d1d}
table{border-collapse:collapse;margin:.6em 0}th,td{border:1px solid #ddd;padding:.3em .6em;text-align:left;vertical-align:top}
th{background:#f5f5f7}.held{background:#e3f6e8}.violated{background:#f87171;color:#fff;font-weight:600}
.shown{background:#fde68a}.notshown{background:#e9d5ff}.na{color:#aaa}
code,pre{font:13px ui-monospace,monospace;background:#f5f5f7;padding:.1em .3em;border-radius:3px}
pre{padding:.6em;white-space:pre-wrap;word-break:break-all}.meta{color:#555}
)";

const char* CssClass(InvariantStatus s) {
  switch (s) {
    case InvariantStatus::kHeld: return "held";
    case InvariantStatus::kViolated: return "violated";
    case InvariantStatus::kShown: return "shown";
    case InvariantStatus::kNotDemonstrated: return "notshown";
  }
  return "";
}

std::string Cell(const ScenarioResult& s, const InvariantResult& r) {
  std::string by_model = r.violated > 0 ? s.ByModel(r) : "";
  return fmt::format("<td class=\"{}\">{}<br><small>{}/{} violated{}</small></td>", CssClass(r.Status()),
                     HtmlEscape(ToString(r.Status())), r.violated, r.held + r.violated,
                     by_model.empty() ? "" : "<br>" + HtmlEscape(by_model));
}

std::string Matrix(const RunResults& results) {
  std::set<std::string> names;
  for (const auto& s : results.scenarios)
    for (const auto& r : s.invariants) names.insert(r.name);
  std::string out = "<table><tr><th>scenario</th>";
  for (const auto& n : names) out += "<th>" + HtmlEscape(n) + "</th>";
  out += "</tr>\n";
  for (const auto& s : results.scenarios) {
    out += "<tr><th><a href=\"#" + HtmlEscape(s.name) + "\">" + HtmlEscape(s.name) + "</a></th>";
    for (const auto& n : names) {
      auto it = std::find_if(s.invariants.begin(), s.invariants.end(), [&](auto& r) { return r.name == n; });
      out += it == s.invariants.end() ? "<td class=\"na\">-</td>" : Cell(s, *it);
    }
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

// Crash points x outcome: violations out of trials, shaded by the violation rate.
std::string HeatMap(const ScenarioResult& s) {
  std::string out = "<table><tr><th>first kill at</th><th>trials</th><th>with a violation</th></tr>\n";
  for (const auto& [point, stat] : s.points) {
    double rate = stat.trials ? static_cast<double>(stat.violations) / stat.trials : 0;
    out += fmt::format(
        "<tr><td><code>{}</code></td><td>{}</td><td style=\"background:rgba(220,38,38,{:.2f})\">{}</td></tr>\n",
        HtmlEscape(point), stat.trials, 0.1 + 0.8 * rate, stat.violations);
  }
  return out + "</table>\n";
}

std::string Examples(const ScenarioResult& s) {
  std::string out;
  for (const auto& r : s.invariants) {
    for (const auto& c : r.examples) {
      out += fmt::format(
          "<div><b>{}</b> ({}) in trial {}: {}<br>schedule: <code>{}</code><br>replay: <code>{}</code></div>\n",
          HtmlEscape(r.name), r.expectation == kMustHold ? "must hold" : "expected", c.trial,
          HtmlEscape(c.explanation), HtmlEscape(c.plan), HtmlEscape(c.replay));
    }
  }
  return out.empty() ? "<p>No violations.</p>\n" : out;
}

std::string ScenarioSection(const ScenarioResult& s) {
  return fmt::format("<h2 id=\"{0}\">{0}</h2>\n<p class=\"meta\">{1} &middot; {2} trials &middot; {3:.1f}s</p>\n"
                     "<h3>Crash points</h3>\n{4}<h3>Counterexamples</h3>\n{5}",
                     HtmlEscape(s.name), HtmlEscape(s.file), s.trials, s.elapsed_s, HeatMap(s), Examples(s));
}

}  // namespace

std::string RenderHtml(const RunResults& r) {
  bool bad = r.MustHoldViolated();
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                    "<meta name=\"viewport\" content=\"width=device-width\">"
                    "<title>killpoint report</title><style>";
  out += kStyle;
  out += "</style></head><body>\n<h1>killpoint report</h1>\n";
  out += fmt::format("<p class=\"meta\">killpoint {} &middot; seed {} &middot; {} trials &middot; started {} &middot; {:.1f}s</p>\n",
                     HtmlEscape(r.killpoint_version), r.seed, r.Trials(), HtmlEscape(r.started_at), r.elapsed_s);
  out += fmt::format("<div class=\"verdict {}\">{}</div>\n", bad ? "bad" : "ok",
                     bad ? "A must-hold invariant was violated." : "Every must-hold invariant held.");
  out += "<h2>Strategies &times; invariants</h2>\n" + Matrix(r);
  for (const auto& s : r.scenarios) out += ScenarioSection(s);
  return out + "</body></html>\n";
}

}  // namespace killpoint
