#include "reports/report_loader.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>

#include "results/layout.h"
#include "util/atomic_file.h"
#include "util/json_error.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

constexpr const char* kFormat = "killpoint-results/1";

Status Check(const ScenarioResult& s, const std::string& where) {
  if (s.trials < 0) return Error::BadInput(where + ": negative trials");
  for (const InvariantResult& r : s.invariants) {
    if (r.expectation != kMustHold && r.expectation != kExpectedViolation) {
      return Error::BadInput(where + ": invariant " + r.name + ": expectation \"" + r.expectation +
                             "\" is neither " + kMustHold + " nor " + kExpectedViolation);
    }
    if (r.held < 0 || r.violated < 0)
      return Error::BadInput(where + ": invariant " + r.name + ": negative counts");
  }
  return Ok();
}

Result<ScenarioResult> ParseScenario(const Json& j, const std::string& where) {
  ScenarioResult s;
  try {
    j.get_to(s);
  } catch (const Json::exception& e) {
    return Error::BadInput(where + ": " + JsonErrorText(e));
  }
  if (Status st = Check(s, where); !st) return st.error();
  return s;
}

// Whether a journal line may belong to `trial`: a cheap test before parsing. Journals are
// written compactly (FormatTrialHistory), so the tag reads "trial":N.
bool MayBeTrial(const std::string& line, const std::string& tag) {
  for (size_t at = line.find(tag); at != std::string::npos; at = line.find(tag, at + 1)) {
    size_t end = at + tag.size();
    if (end == line.size() || !std::isdigit(static_cast<unsigned char>(line[end]))) return true;
  }
  return false;
}

}  // namespace

Result<RunResults> ParseResults(std::string_view text, const std::string& file) {
  Json j = Json::parse(text, nullptr, false);
  if (j.is_discarded()) return Error::BadInput(file + ": not valid JSON (damaged or truncated?)");
  if (!j.is_object() || !j.contains("format")) {
    return Error::BadInput(file + ": not a killpoint results file (it has no \"format\")");
  }
  if (j["format"] != kFormat) {
    return Error::BadInput(file + ": results format " + j["format"].dump() + " is not the " +
                           kFormat + " this killpoint reads");
  }
  RunResults r;
  try {
    j.at("killpoint_version").get_to(r.killpoint_version);
    j.at("seed").get_to(r.seed);
    j.at("started_at").get_to(r.started_at);
    j.at("elapsed_s").get_to(r.elapsed_s);
    if (j.contains("shard")) r.shard = j.at("shard").get<ShardInfo>();
    if (j.contains("partial")) j.at("partial").get_to(r.partial);
    // Absent in results of before issue 32: unknown, which the reports show as no backend.
    if (j.contains("interception")) j.at("interception").get_to(r.interception);
    const Json& scenarios = j.at("scenarios");
    if (!scenarios.is_array()) return Error::BadInput(file + ": \"scenarios\" is not an array");
    for (size_t i = 0; i < scenarios.size(); ++i) {
      std::string where = file + ": scenarios[" + std::to_string(i) + "]";
      if (scenarios[i].is_object() && scenarios[i].contains("name"))
        where += " (" + scenarios[i]["name"].dump() + ")";
      auto s = ParseScenario(scenarios[i], where);
      if (!s) return s.error();
      r.scenarios.push_back(std::move(s.value()));
    }
  } catch (const Json::exception& e) {
    return Error::BadInput(file + ": " + JsonErrorText(e));
  }
  return r;
}

Result<std::map<int, std::vector<Event>>> ReadTrialEvents(const fs::path& log,
                                                          const std::set<int>& trials) {
  std::ifstream in(log, std::ios::binary);
  if (!in) return Error::BadInput("cannot read " + log.string() + ": " + std::strerror(errno));
  std::vector<std::string> tags;
  for (int t : trials) tags.push_back("\"trial\":" + std::to_string(t));
  std::map<int, std::vector<Event>> out;
  std::string line;
  for (size_t line_no = 1; std::getline(in, line); ++line_no) {
    if (in.eof()) break;  // no newline: the torn tail of an interrupted append
    if (std::none_of(tags.begin(), tags.end(),
                     [&](const std::string& tag) { return MayBeTrial(line, tag); }))
      continue;
    try {
      Json j = Json::parse(line);
      int trial = j.at("trial").get<int>();
      if (trials.count(trial)) out[trial].push_back(j.get<Event>());
    } catch (const Json::exception& e) {
      return Error::BadInput(log.string() + ":" + std::to_string(line_no) +
                             ": not a history event: " + JsonErrorText(e));
    }
  }
  return out;
}

Status AttachHistories(RunReport& run, const fs::path& out_dir) {
  const auto& scenarios = run.results.scenarios;
  run.histories.assign(scenarios.size(), {});
  run.history_notes.assign(scenarios.size(), "");
  for (size_t i = 0; i < scenarios.size(); ++i) {
    std::set<int> trials;
    for (const auto& c : CounterexampleTrials(scenarios[i])) trials.insert(c.trial);
    if (trials.empty()) continue;
    fs::path log = HistoryJournal(ScenarioDir(out_dir, scenarios[i].name));
    std::error_code ec;
    if (!fs::exists(log, ec)) {
      run.history_notes[i] = log.string() + " is missing";
      continue;
    }
    auto events = ReadTrialEvents(log, trials);
    if (!events) return events.error();
    run.histories[i] = std::move(events.value());
    if (run.histories[i].size() < trials.size())
      run.history_notes[i] = log.string() + " lacks this trial";
  }
  return Ok();
}

Result<RunReport> LoadRun(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return Error::BadInput(path.string() + ": no such file or folder");
  bool is_dir = fs::is_directory(path, ec);
  fs::path file = is_dir ? ResultsFile(path) : path;
  if (is_dir && !fs::exists(file, ec)) {
    return Error::BadInput(file.string() + " is missing: is " + path.string() +
                           " the --out folder of a killpoint run?");
  }
  auto text = ReadFile(file);
  if (!text) return text.error();
  auto results = ParseResults(text.value(), file.string());
  if (!results) return results.error();
  RunReport run{path.string(), std::move(results.value()), {}, {}};
  if (Status s = AttachHistories(run, file.parent_path()); !s) return s.error();
  return run;
}

}  // namespace killpoint
