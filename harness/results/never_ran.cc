// A scenario whose job never ran (history/start_failure.h): the results' side.
#include <algorithm>

#include "results/results.h"
#include "util/printable.h"

namespace killpoint {
namespace {

// The last `n` lines of `text`, its trailing blank lines dropped.
std::vector<std::string> LastLines(const std::string& text, size_t n) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
    start = end + 1;
  }
  while (!lines.empty() && lines.back().find_first_not_of(" \t") == std::string::npos)
    lines.pop_back();
  if (lines.size() > n) lines.erase(lines.begin(), lines.end() - static_cast<ptrdiff_t>(n));
  return lines;
}

}  // namespace

void StartFailureStats::Add(int trial, const StartFailure& f) {
  if (trials == 0) {
    first = f;
    first_trial = trial;
  } else if (f.code != first.code) {
    same = false;
  }
  ++trials;
}

bool ScenarioResult::NeverRan() const {
  // A job that failed at a call the supervisor refused did run: that is "not exercised".
  return trials > 0 && start_failures.trials == trials && start_failures.same && !Refused();
}

std::string ScenarioResult::NeverRanExplanation() const {
  if (!NeverRan()) return "";
  std::string hint = StartFailureHint(start_failures.first.code);
  std::string code = std::to_string(start_failures.first.code) +
                     (hint.empty() ? "" : " (" + hint.substr(hint.find(':') + 2) + ")");
  return "every attempt of " +
         (trials == 1 ? std::string("its trial") : "its " + std::to_string(trials) + " trials") +
         " exited with code " + code +
         " before reaching any crash point or calling the downstream, so no invariant was "
         "tested. Check job.command: a relative path is looked up in the sandbox, the job's "
         "working directory ({scenario_dir}/NAME names a file beside the scenario file)";
}

std::vector<std::string> ScenarioResult::NeverRanStderr() const {
  if (!NeverRan()) return {};
  std::vector<std::string> out;
  for (const std::string& line : LastLines(start_failures.first.stderr_tail, kNeverRanStderrLines))
    out.push_back(Printable(line, 240));
  return out;
}

bool RunResults::NeverRan() const {
  return std::any_of(scenarios.begin(), scenarios.end(),
                     [](const ScenarioResult& s) { return s.NeverRan(); });
}

}  // namespace killpoint
