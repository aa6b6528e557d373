#include "reports/report_model.h"

#include <fmt/format.h>

#include <algorithm>

namespace killpoint {

const std::vector<Event>* RunReport::Events(size_t scenario, int trial) const {
  if (scenario >= histories.size()) return nullptr;
  auto it = histories[scenario].find(trial);
  return it == histories[scenario].end() ? nullptr : &it->second;
}

bool ReportData::NotExercised() const {
  return std::any_of(runs.begin(), runs.end(),
                     [](const RunReport& r) { return r.results.NotExercised(); });
}

bool ReportData::NeverRan() const {
  return std::any_of(runs.begin(), runs.end(),
                     [](const RunReport& r) { return r.results.NeverRan(); });
}

bool ReportData::Partial() const {
  return std::any_of(runs.begin(), runs.end(),
                     [](const RunReport& r) { return !r.results.partial.empty(); });
}

bool ReportData::MustHoldViolated() const {
  return std::any_of(runs.begin(), runs.end(),
                     [](const RunReport& r) { return r.results.MustHoldViolated(); });
}

int ReportData::Trials() const {
  int n = 0;
  for (const auto& r : runs) n += r.results.Trials();
  return n;
}

std::vector<ScenarioRef> Scenarios(const ReportData& report) {
  std::vector<ScenarioRef> out;
  for (const RunReport& run : report.runs) {
    for (size_t i = 0; i < run.results.scenarios.size(); ++i) {
      out.push_back({&run, i, "s" + std::to_string(out.size())});
    }
  }
  return out;
}

std::vector<CounterexampleTrial> CounterexampleTrials(const ScenarioResult& s) {
  std::vector<CounterexampleTrial> out;
  for (const InvariantResult& r : s.invariants) {
    for (const Counterexample& c : r.examples) {
      auto it =
          std::find_if(out.begin(), out.end(), [&](const auto& t) { return t.trial == c.trial; });
      if (it == out.end())
        it = out.insert(out.end(), {c.trial, c.plan, c.ReplayCommands(), {}, ""});
      it->broken.emplace_back(&r, c.explanation);
      if (it->hint.empty()) it->hint = c.hint;
    }
  }
  return out;
}

namespace {
void AddOnce(std::vector<std::string>& list, const std::string& item) {
  if (!item.empty() && std::find(list.begin(), list.end(), item) == list.end())
    list.push_back(item);
}
}  // namespace

std::vector<std::string> RunModels(const RunResults& results) {
  std::vector<std::string> out;
  for (const auto& s : results.scenarios) {
    for (const auto& m : s.ModelsRun()) AddOnce(out, m);
  }
  return out;
}

std::vector<std::string> RunJobCommits(const RunResults& results) {
  std::vector<std::string> out;
  for (const auto& s : results.scenarios) AddOnce(out, s.job_commit);
  return out;
}

std::string Plural(size_t n, const std::string& noun) {
  return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s");
}

std::string AllTrials(int n) { return n == 1 ? "its one trial" : fmt::format("all {} trials", n); }

std::string InterceptionShown(const std::string& interception) {
  if (!Intercepted(interception)) return "";
  constexpr std::string_view kMixed = "mixed: ";
  if (interception.starts_with(kMixed)) return "mixed (" + interception.substr(kMixed.size()) + ")";
  return interception;
}

std::string JoinOr(const std::vector<std::string>& items, const std::string& none) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
  return out.empty() ? none : out;
}

ReportData SingleRunReport(const RunResults& results) {
  ReportData report;
  report.runs.push_back({"", results, {}, {}});
  return report;
}

}  // namespace killpoint
