#include "reports/html_scenario.h"

#include <fmt/format.h>

#include <algorithm>

#include "reports/html_escape.h"
#include "reports/timeline.h"
#include "reports/timeline_svg.h"

namespace killpoint {
namespace {

using html::E;

// Most events listed under a timeline; the journal has them all.
constexpr size_t kMaxListedEvents = 400;

// Crash points in the job's vocabulary order is unknown here; sort by the point's name, then
// before/after/mid, so the three moments of one point sit together.
std::vector<std::string> SortedPoints(const std::map<std::string, PointStat>& points) {
  auto key = [](const std::string& p) {
    for (const char* moment : {"after:", "mid:"}) {
      if (p.rfind(moment, 0) == 0)
        return std::make_pair(p.substr(std::string(moment).size()), moment[0] == 'a' ? 1 : 2);
    }
    return std::make_pair(p, 0);
  };
  std::vector<std::string> out;
  for (const auto& [p, stat] : points) out.push_back(p);
  std::stable_sort(out.begin(), out.end(),
                   [&](const auto& a, const auto& b) { return key(a) < key(b); });
  return out;
}

std::string HeatCell(int violations, int trials, const char* rgb) {
  double rate = trials ? static_cast<double>(violations) / trials : 0;
  const char* ink = rate > 0.55 ? "#fff" : "#111";
  return fmt::format("<td class=\"heat\" style=\"background:rgba({},{:.2f});color:{}\">{}/{}</td>",
                     rgb, violations ? 0.12 + 0.88 * rate : 0.0, ink, violations, trials);
}

// Crash points x invariants: in how many of the trials whose first kill was at that point
// each invariant broke. Red for must-hold invariants, amber for expected trade-offs.
std::string HeatMap(const ScenarioResult& s) {
  if (s.points.empty()) return "<p>No trials.</p>\n";
  bool per_invariant = std::any_of(s.points.begin(), s.points.end(),
                                   [](auto& p) { return !p.second.by_invariant.empty(); });
  std::string out = "<div class=\"scroll\"><table><tr><th>first kill at</th>";
  if (per_invariant) {
    for (const auto& r : s.invariants) {
      out += fmt::format("<th class=\"rot\">{}<br><small>{}</small></th>", E(r.name),
                         ExpectationText(r));
    }
  }
  out += "<th class=\"rot\">any invariant</th></tr>\n";
  for (const std::string& point : SortedPoints(s.points)) {
    const PointStat& stat = s.points.at(point);
    out += "<tr><td><code>" + E(point) + "</code></td>";
    if (per_invariant) {
      for (const auto& r : s.invariants) {
        auto v = stat.by_invariant.find(r.name);
        out += HeatCell(v == stat.by_invariant.end() ? 0 : v->second, stat.trials,
                        r.expectation == kMustHold ? "220,38,38" : "217,119,6");
      }
    }
    out += HeatCell(stat.violations, stat.trials, "107,114,128") + "</tr>\n";
  }
  return out + "</table></div>\n";
}

std::string EventList(const std::vector<Event>& events) {
  std::string out = fmt::format(
      "<details><summary>all {} events</summary><div class=\"scroll\"><table>"
      "<tr><th>#</th><th>virtual ms</th><th>run</th><th>event</th><th>data</th></tr>\n",
      events.size());
  for (size_t i = 0; i < events.size() && i < kMaxListedEvents; ++i) {
    const Event& e = events[i];
    std::string run =
        e.biz_date.empty() ? "" : fmt::format("{} #{} a{}", e.biz_date, e.trigger, e.attempt);
    std::string data = e.data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td></tr>\n", e.seq,
        e.t_ms, E(run), E(e.type), E(data));
  }
  if (events.size() > kMaxListedEvents) {
    out += fmt::format("<tr><td colspan=\"5\">... {} more in the history journal</td></tr>\n",
                       events.size() - kMaxListedEvents);
  }
  return out + "</table></div></details>\n";
}

std::string Stderr(const Timeline& t) {
  std::string out;
  for (const Lane& lane : t.lanes) {
    if (lane.stderr_tail.empty()) continue;
    out += fmt::format("<p>{} stderr:</p><pre>{}</pre>", E(lane.Title()), E(lane.stderr_tail));
  }
  return out.empty() ? ""
                     : "<details><summary>stderr of the attempts</summary>" + out + "</details>\n";
}

std::string TimelineBlock(const std::vector<Event>* events, const std::string& note,
                          const TimelineOptions& options) {
  if (!events)
    return "<p class=\"meta\">Timeline unavailable" +
           (note.empty() ? std::string(".") : ": " + E(note)) + "</p>\n";
  Timeline t = BuildTimeline(*events, options);
  std::string out = "<div class=\"scroll\">" + RenderTimelineSvg(t) + "</div>\n";
  if (!t.final_state.empty()) {
    out += "<p><b>Final state</b></p><ul>";
    for (const auto& line : t.final_state) out += "<li>" + E(line) + "</li>";
    out += "</ul>\n";
  }
  if (!t.notes.empty()) {
    out += "<ul class=\"meta\">";
    for (const auto& n : t.notes) out += "<li>" + E(n) + "</li>";
    out += "</ul>\n";
  }
  return out + Stderr(t) + EventList(*events);
}

std::string Counterexamples(const ScenarioRef& ref) {
  std::vector<CounterexampleTrial> trials = CounterexampleTrials(ref.result());
  if (trials.empty()) return "<p>No violations.</p>\n";
  std::string note =
      ref.index < ref.run->history_notes.size() ? ref.run->history_notes[ref.index] : "";
  std::vector<std::string> names;
  for (const InvariantResult& r : ref.result().invariants) names.push_back(r.name);
  TimelineOptions options = TimelineOptionsFor(names);
  std::string out;
  for (const CounterexampleTrial& t : trials) {
    out += fmt::format("<div class=\"example\" id=\"{}-t{}\"><h4>trial {}</h4><ul>", ref.anchor,
                       t.trial, t.trial);
    for (const auto& [r, explanation] : t.broken) {
      out += fmt::format("<li><b>{}</b> ({}): {}</li>", E(r->name), ExpectationText(*r),
                         E(explanation));
    }
    out += "</ul>";
    if (!t.hint.empty()) out += "<p class=\"hint\"><b>Likely cause:</b> " + E(t.hint) + "</p>";
    out += fmt::format("<p>schedule: <code>{}</code></p><p>replay:</p><pre>{}</pre>\n", E(t.plan),
                       E(t.replay));
    out += TimelineBlock(ref.run->Events(ref.index, t.trial), note, options) + "</div>\n";
  }
  return out;
}

std::string Meta(const ScenarioResult& s) {
  std::string models;
  for (const auto& m : s.ModelsRun()) models += (models.empty() ? "" : ", ") + m;
  std::string out =
      fmt::format("<code>{}</code> &middot; {}", E(s.file), Plural(s.trials, "trial"));
  if (s.exhaustive_total > 0) out += " (exhaustive: " + E(s.ExhaustiveCoverage()) + ")";
  out += " &middot; models: " + (models.empty() ? std::string("none (no kill fired)") : E(models));
  out += " &middot; job commit: " + (s.job_commit.empty() ? std::string("not in a git checkout")
                                                          : "<code>" + E(s.job_commit) + "</code>");
  out += fmt::format(" &middot; {:.1f}s", s.elapsed_s);
  if (s.NeverRan()) {
    out += "<br><b>JOB NEVER RAN</b>: " + E(s.NeverRanExplanation());
    std::string err;
    for (const std::string& line : s.NeverRanStderr()) err += E(line) + "\n";
    out += fmt::format("<br>stderr of trial {}, attempt 1 (last lines):<pre>{}</pre>",
                       s.start_failures.first_trial, err);
  }
  if (std::string why = s.exercise.Explanation(); !why.empty())
    out += fmt::format("<br>{}{}", s.NotExercised() ? "<b>NOT EXERCISED</b>: " : "", E(why));
  for (const std::string& note : s.OutsideWriteNotes())
    out +=
        fmt::format("<br><span class=\"outside\"><b>Outside the sandbox</b>: {}</span>", E(note));
  if (std::string hint = s.OutsideWriteHint(); !hint.empty()) out += fmt::format("<br>{}", E(hint));
  return out;
}

}  // namespace

const char* ExpectationText(const InvariantResult& r) {
  return r.expectation == kMustHold ? "must hold" : "expected to break";
}

std::string RenderScenarioSection(const ScenarioRef& ref) {
  const ScenarioResult& s = ref.result();
  return fmt::format(
      "<h2 id=\"{}\">{}</h2>\n<p class=\"meta\">{}</p>\n<h3>Crash points</h3>\n{}"
      "<h3>Counterexamples</h3>\n{}",
      ref.anchor, E(s.name), Meta(s), HeatMap(s), Counterexamples(ref));
}

}  // namespace killpoint
