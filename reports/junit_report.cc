#include "reports/junit_report.h"

#include <fmt/format.h>

#include "reports/html_escape.h"

namespace killpoint {
namespace {

// HtmlEscape's output is valid XML 1.0 character data too: it escapes the five markup
// characters and replaces every control character and invalid UTF-8 that XML forbids.
std::string Text(const std::string& s) { return HtmlEscape(s); }

// In an attribute a raw newline would be normalized to a space; keep it as a reference.
std::string Attr(const std::string& s) {
  std::string out;
  for (char c : Text(s))
    out += c == '\n' ? std::string("&#10;") : c == '\t' ? std::string("&#9;") : std::string(1, c);
  return out;
}

// JUnit's schema wants a timestamp without a zone; ours is UTC.
std::string Timestamp(const std::string& iso) {
  return !iso.empty() && iso.back() == 'Z' ? iso.substr(0, iso.size() - 1) : iso;
}

std::string Example(const Counterexample& c) {
  return fmt::format("trial {}: {}\n{}schedule: {}\nreplay: {}\n", c.trial, c.explanation,
                     c.hint.empty() ? "" : "likely cause: " + c.hint + "\n", c.plan,
                     c.ReplayCommands());
}

// A job that never ran: a failure with why and the job's stderr, whatever the invariant.
std::string NeverRanBody(const ScenarioResult& s) {
  std::string err;
  for (const std::string& line : s.NeverRanStderr()) err += line + "\n";
  return fmt::format(
      "<failure message=\"{}\" type=\"never_ran\">{}</failure>",
      Attr("the job never ran: " + s.NeverRanExplanation()),
      Text(fmt::format("the job never ran: {}\n\nstderr of trial {}, attempt 1 (last lines):\n{}",
                       s.NeverRanExplanation(), s.start_failures.first_trial, err)));
}

std::string Body(const ScenarioResult& s, const InvariantResult& r) {
  if (s.NeverRan()) return NeverRanBody(s);
  switch (s.StatusOf(r)) {
    case InvariantStatus::kNotExercised:
      // A failure, not a pass: the invariant held, but not where the scenario said to test it.
      return fmt::format("<failure message=\"{}\" type=\"not_exercised\">{}</failure>",
                         Attr("not exercised: " + s.exercise.Explanation()),
                         Text(fmt::format("held in {}, but the scenario was not exercised: {}\n",
                                          AllTrials(r.held), s.exercise.Explanation())));
    case InvariantStatus::kHeld:
      return fmt::format("<system-out>{}</system-out>", Text("held in " + AllTrials(r.held)));
    case InvariantStatus::kViolated: {
      std::string message = r.examples.empty() ? fmt::format("violated in {} of {} trials",
                                                             r.violated, r.held + r.violated)
                                               : r.examples.front().explanation;
      // The replay command first: it is what a person copies from the CI page.
      std::string body = r.examples.empty() ? "" : r.examples.front().ReplayCommands() + "\n\n";
      if (std::string hint = r.Hint(); !hint.empty()) body += "likely cause: " + hint + "\n\n";
      body += fmt::format("violated in {} of {} trials\n", r.violated, r.held + r.violated);
      for (const auto& c : r.examples) body += "\n" + Example(c);
      return fmt::format("<failure message=\"{}\" type=\"must_hold\">{}</failure>", Attr(message),
                         Text(body));
    }
    case InvariantStatus::kShown: {
      std::string note = fmt::format("expected trade-off, shown: broke in {} of {} trials\n",
                                     r.violated, r.held + r.violated);
      for (const auto& c : r.examples) note += "\n" + Example(c);
      return fmt::format("<system-out>{}</system-out>", Text(note));
    }
    case InvariantStatus::kNotDemonstrated:
      return fmt::format(
          "<skipped message=\"{}\"/>",
          Attr(fmt::format("expected to break, but held in {}: the trade-off was not "
                           "demonstrated (more trials, another seed or model may show it)",
                           AllTrials(r.held))));
  }
  return "";
}

struct Counts {
  int tests = 0, failures = 0, skipped = 0;
  void Add(const ScenarioResult& s, const InvariantResult& r) {
    ++tests;
    failures += s.StatusOf(r) == InvariantStatus::kViolated ||
                s.StatusOf(r) == InvariantStatus::kNotExercised;
    skipped += s.StatusOf(r) == InvariantStatus::kNotDemonstrated;
  }
};

std::string Property(const char* name, const std::string& value) {
  return fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", name, Attr(value));
}

// Every trial checks all of a scenario's invariants at once: each testcase gets an equal share
// of the scenario's time, so that CI systems that add up testcases get the suite's time.
double TestcaseSeconds(const ScenarioResult& s) {
  return s.invariants.empty() ? 0 : s.elapsed_s / static_cast<double>(s.invariants.size());
}

std::string Suite(const ScenarioRef& ref, Counts& total) {
  const ScenarioResult& s = ref.result();
  const RunResults& run = ref.run->results;
  Counts c;
  std::string cases;
  for (const InvariantResult& r : s.invariants) {
    c.Add(s, r);
    cases += fmt::format(
        "    <testcase name=\"{}\" classname=\"{}\" file=\"{}\" time=\"{:.3f}\">{}</testcase>\n",
        Attr(r.name), Attr(s.name), Attr(s.file), TestcaseSeconds(s), Body(s, r));
  }
  total.tests += c.tests;
  total.failures += c.failures;
  total.skipped += c.skipped;
  std::string models;
  for (const auto& m : s.ModelsRun()) models += (models.empty() ? "" : ",") + m;
  std::string props = Property("seed", std::to_string(run.seed)) +
                      Property("trials", std::to_string(s.trials)) + Property("models", models) +
                      Property("killpoint_version", run.killpoint_version) +
                      Property("scenario_file", s.file);
  if (!s.job_commit.empty()) props += Property("job_commit", s.job_commit);
  // Only on a suite whose scenario's jobs were intercepted (docs/reports.md).
  if (std::string shown = InterceptionShown(s.interception); !shown.empty())
    props += Property("interception", shown);
  if (!s.exercise.Explanation().empty()) props += Property("exercise", s.exercise.Explanation());
  if (!ref.run->source.empty()) props += Property("results", ref.run->source);
  return fmt::format(
      "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" "
      "time=\"{:.3f}\" "
      "timestamp=\"{}\">\n    <properties>\n{}    </properties>\n{}  </testsuite>\n",
      Attr(s.name), c.tests, c.failures, c.skipped, s.elapsed_s, Attr(Timestamp(run.started_at)),
      props, cases);
}

}  // namespace

std::string RenderJunit(const ReportData& report) {
  Counts total;
  std::string suites;
  double time = 0;
  for (const ScenarioRef& ref : Scenarios(report)) {
    suites += Suite(ref, total);
    time += ref.result().elapsed_s;
  }
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<testsuites name=\"killpoint\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" "
      "time=\"{:.3f}\">\n{}"
      "</testsuites>\n",
      total.tests, total.failures, total.skipped, time, suites);
}

}  // namespace killpoint
