#include "reports/diff_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "reports/html_escape.h"
#include "reports/markdown_report.h"
#include "reports/report_model.h"
#include "util/printable.h"

namespace killpoint {
namespace {

// The changes in the order the reports list them: worse, then better, then the rest.
constexpr Change kDiffOrder[] = {Change::kNewViolation,
                                 Change::kNewlyNotExercised,
                                 Change::kNewlyNotDemonstrated,
                                 Change::kFixed,
                                 Change::kNowExercised,
                                 Change::kNewlyShown,
                                 Change::kAdded,
                                 Change::kRemoved,
                                 Change::kStillViolated,
                                 Change::kStillNotExercised,
                                 Change::kUnchanged};

// "VIOLATED 3/10", "held 0/10"; "absent" for a side that did not have it.
std::string DiffSide(const std::optional<InvariantStatus>& s, int violated, int trials) {
  if (!s) return "absent";
  return fmt::format("{} {}/{}", ToString(*s), violated, trials);
}

std::string DiffPlural(int n, const std::string& noun) {
  return Plural(static_cast<size_t>(n), noun);
}

// "2 new violations", "2 fixed": only the noun takes a plural.
std::string ChangeCount(int n, Change c) {
  return c == Change::kNewViolation ? DiffPlural(n, ToString(c))
                                    : std::to_string(n) + " " + ToString(c);
}

// The changes a report lists one by one (the unchanged and still-failing are counted, or
// folded).
bool Listed(Change c) {
  return c != Change::kUnchanged && c != Change::kStillViolated && c != Change::kStillNotExercised;
}

const char* DiffColor(Change c) {
  if (IsWorse(c)) return "\033[1;31m";
  if (c == Change::kNewlyNotDemonstrated) return "\033[35m";
  if (c == Change::kFixed || c == Change::kNowExercised) return "\033[32m";
  return "";
}

const char* DiffIcon(Change c) {
  if (IsWorse(c)) return "\u274C ";
  if (c == Change::kNewlyNotDemonstrated) return "\u2796 ";
  if (c == Change::kFixed || c == Change::kNowExercised) return "\u2705 ";
  return "";
}

std::string DiffVerdict(const RunDiff& d) {
  std::string worse;
  for (Change c : {Change::kNewViolation, Change::kNewlyNotExercised}) {
    int n = d.Count(c);
    if (n) worse += (worse.empty() ? "" : ", ") + ChangeCount(n, c);
  }
  if (!d.never_ran.empty())
    return fmt::format("no verdict: the job of {} never ran", JoinOr(d.never_ran, ""));
  if (!worse.empty()) return "WORSE than the baseline: " + worse;
  return "nothing got worse than the baseline";
}

// The Markdown heading's words: "1 new violation", "nothing got worse".
std::string DiffHeading(const RunDiff& d) {
  std::string verdict = DiffVerdict(d);
  if (size_t colon = verdict.find("baseline: "); colon != std::string::npos)
    return verdict.substr(colon + 10);
  return verdict == "nothing got worse than the baseline" ? "nothing got worse" : verdict;
}

std::string DiffRow(const InvariantChange& c) {
  return fmt::format("| {}{} | {} | {} | {} | {} |\n", DiffIcon(c.change), ToString(c.change),
                     MarkdownEscape(c.scenario), MarkdownEscape(c.invariant),
                     DiffSide(c.before, c.violated_before, c.trials_before),
                     DiffSide(c.after, c.violated_after, c.trials_after));
}

constexpr const char* kDiffHead =
    "| change | scenario | invariant | baseline | now |\n| --- | --- | --- | --- | --- |\n";

// The report's cell colour of a change: worse red, newly not demonstrated purple, better green.
const char* DiffClass(Change c) {
  if (IsWorse(c)) return "violated";
  if (c == Change::kNewlyNotDemonstrated) return "notshown";
  if (c == Change::kFixed || c == Change::kNowExercised) return "held";
  return "";
}

std::string DiffHtmlRow(const InvariantChange& c) {
  using html::E;
  std::string css = *DiffClass(c.change) ? fmt::format(" class=\"{}\"", DiffClass(c.change)) : "";
  return fmt::format("<tr><td{}>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", css,
                     E(ToString(c.change)), E(c.scenario), E(c.invariant),
                     E(DiffSide(c.before, c.violated_before, c.trials_before)),
                     E(DiffSide(c.after, c.violated_after, c.trials_after)));
}

constexpr const char* kDiffHtmlHead =
    "<table><tr><th>change</th><th>scenario</th><th>invariant</th><th>baseline</th><th>now</th>"
    "</tr>\n";

}  // namespace

std::string DiffCounts(const RunDiff& d) {
  std::string out;
  for (Change c : kDiffOrder) {
    int n = d.Count(c);
    if (n == 0) continue;
    out += (out.empty() ? "" : ", ") + ChangeCount(n, c);
  }
  if (out.empty()) out = "no invariant in either run";
  std::string scenarios;
  if (!d.scenarios_added.empty())
    scenarios += DiffPlural(static_cast<int>(d.scenarios_added.size()), "scenario") + " added";
  if (!d.scenarios_removed.empty())
    scenarios += (scenarios.empty() ? "" : ", ") +
                 DiffPlural(static_cast<int>(d.scenarios_removed.size()), "scenario") + " removed";
  return scenarios.empty() ? out : out + "; " + scenarios;
}

std::string RenderDiffText(const RunDiff& d, bool color) {
  std::string out = "against the baseline" +
                    (d.before_source.empty() ? "" : " " + Printable(d.before_source, 200)) + ":\n";
  for (Change kind : kDiffOrder) {
    if (!Listed(kind) && kind != Change::kStillViolated) continue;
    for (const InvariantChange* c : d.Of(kind)) {
      std::string label = ToString(kind);
      if (IsWorse(kind)) std::transform(label.begin(), label.end(), label.begin(), ::toupper);
      if (color && *DiffColor(kind)) label = DiffColor(kind) + label + "\033[0m";
      out += fmt::format("  {}: {} / {}: {} (baseline: {})\n", label, Printable(c->scenario, 200),
                         Printable(c->invariant, 200),
                         DiffSide(c->after, c->violated_after, c->trials_after),
                         DiffSide(c->before, c->violated_before, c->trials_before));
      if (!c->replay.empty()) {
        std::string first = c->replay.substr(0, c->replay.find('\n'));
        out += "    replay: " + first + "\n";
      }
    }
  }
  for (const std::string& s : d.scenarios_added)
    out += "  scenario added: " + Printable(s, 200) + "\n";
  for (const std::string& s : d.scenarios_removed)
    out += "  scenario removed: " + Printable(s, 200) + "\n";
  out += "  " + DiffCounts(d) + "\n";
  std::string verdict = DiffVerdict(d);
  if (color)
    verdict = (d.Worse() || !d.never_ran.empty() ? "\033[1;31m" : "\033[32m") + verdict + "\033[0m";
  return out + "baseline verdict: " + verdict + "\n";
}

std::string RenderDiffMarkdown(const RunDiff& d) {
  std::string out = fmt::format("### Against the baseline: {}{}\n\n",
                                d.Worse() || !d.never_ran.empty() ? "\u274C " : "\u2705 ",
                                MarkdownEscape(DiffHeading(d)));
  out += MarkdownEscape(DiffCounts(d)) + " (baseline: " + MarkdownEscape(d.before_source) + ")\n";
  std::string rows, still;
  for (Change kind : kDiffOrder) {
    for (const InvariantChange* c : d.Of(kind)) {
      if (Listed(kind)) rows += DiffRow(*c);
      if (kind == Change::kStillViolated || kind == Change::kStillNotExercised)
        still += DiffRow(*c);
    }
  }
  if (!rows.empty()) out += "\n" + std::string(kDiffHead) + rows;
  for (const InvariantChange* c : d.Of(Change::kNewViolation)) {
    if (c->replay.empty()) continue;
    out += fmt::format("\n**New violation** \u00B7 {} \u00B7 {}:\n\n", MarkdownEscape(c->scenario),
                       MarkdownCode(c->invariant)) +
           MarkdownCodeBlock(c->replay);
  }
  for (const std::string& s : d.scenarios_added) out += "\n- scenario added: " + MarkdownEscape(s);
  for (const std::string& s : d.scenarios_removed)
    out += "\n- scenario removed: " + MarkdownEscape(s);
  if (!d.scenarios_added.empty() || !d.scenarios_removed.empty()) out += "\n";
  if (!still.empty()) {
    out += fmt::format(
        "\n<details><summary>Failing in the baseline too ({})</summary>\n\n{}{}\n</details>\n",
        Plural(static_cast<size_t>(d.Count(Change::kStillViolated) +
                                   d.Count(Change::kStillNotExercised)),
               "invariant"),
        kDiffHead, still);
  }
  return out;
}

std::string RenderDiffHtml(const RunDiff& d) {
  using html::E;
  bool bad = d.Worse() || !d.never_ran.empty();
  std::string out = fmt::format(
      "<h2 id=\"baseline\">Against the baseline</h2>\n<div class=\"verdict {}\"><b>{}</b><p>{} "
      "(baseline: <code>{}</code>)</p></div>\n",
      bad ? "bad" : "ok", E(DiffVerdict(d)), E(DiffCounts(d)), E(d.before_source));
  std::string rows, still;
  for (Change kind : kDiffOrder) {
    for (const InvariantChange* c : d.Of(kind)) {
      if (Listed(kind)) rows += DiffHtmlRow(*c);
      if (kind == Change::kStillViolated || kind == Change::kStillNotExercised)
        still += DiffHtmlRow(*c);
    }
  }
  if (!rows.empty()) out += kDiffHtmlHead + rows + "</table>\n";
  for (const InvariantChange* c : d.Of(Change::kNewViolation)) {
    if (c->replay.empty()) continue;
    out += fmt::format(
        "<p><b>New violation</b> &middot; {} &middot; <code>{}</code>:</p><pre>{}</pre>\n",
        E(c->scenario), E(c->invariant), E(c->replay));
  }
  std::string scenarios;
  for (const std::string& s : d.scenarios_added)
    scenarios += "<li>scenario added: " + E(s) + "</li>";
  for (const std::string& s : d.scenarios_removed)
    scenarios += "<li>scenario removed: " + E(s) + "</li>";
  if (!scenarios.empty()) out += "<ul>" + scenarios + "</ul>\n";
  if (!still.empty()) {
    out += fmt::format(
        "<details><summary>Failing in the baseline too ({})</summary>\n{}{}</table></details>\n",
        Plural(static_cast<size_t>(d.Count(Change::kStillViolated) +
                                   d.Count(Change::kStillNotExercised)),
               "invariant"),
        kDiffHtmlHead, still);
  }
  return out;
}

}  // namespace killpoint
