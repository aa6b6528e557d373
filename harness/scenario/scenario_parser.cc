#include "scenario/scenario_parser.h"

#include <algorithm>
#include <chrono>
#include <regex>
#include <set>

#include "scenario/field_reader.h"
#include "scenario/vocabulary.h"
#include "util/atomic_file.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

bool IsRealDate(const std::string& s) {
  static const std::regex kShape(R"(\d{4}-\d{2}-\d{2})");
  if (!std::regex_match(s, kShape)) return false;
  std::chrono::year_month_day ymd{std::chrono::year{std::stoi(s.substr(0, 4))},
                                  std::chrono::month{static_cast<unsigned>(std::stoi(s.substr(5, 2)))},
                                  std::chrono::day{static_cast<unsigned>(std::stoi(s.substr(8, 2)))}};
  return ymd.ok();
}

template <size_t N>
bool OneOf(const std::string& s, const std::array<std::string_view, N>& names) {
  return std::find(names.begin(), names.end(), s) != names.end();
}

template <size_t N>
std::string Join(const std::array<std::string_view, N>& names) {
  std::string out;
  for (auto n : names) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

void CheckPlaceholders(FieldReader& r, const std::string& key, const std::vector<std::string>& argv) {
  static const std::regex kPlaceholder(R"(\{([^{}]*)\})");
  for (size_t i = 0; i < argv.size(); ++i) {
    for (std::sregex_iterator it(argv[i].begin(), argv[i].end(), kPlaceholder), end; it != end;
         ++it) {
      std::string name = (*it)[1];
      if (!OneOf(name, kPlaceholders)) {
        r.Fail(key + "[" + std::to_string(i) + "]",
               "unknown placeholder {" + name + "} (known: " + Join(kPlaceholders) + ")");
      }
    }
  }
}

JobSpec ReadJob(FieldReader r) {
  JobSpec job;
  job.command = r.Strings("command", true, false);
  if (job.command[0].empty()) r.Fail("command[0]", "the program must not be empty");
  CheckPlaceholders(r, "command", job.command);
  job.setup = r.Strings("setup", false, true);
  CheckPlaceholders(r, "setup", job.setup);
  job.env = r.StringMap("env");
  const int64_t timeout = 10000;
  job.timeout_ms = r.Integer("timeout_ms", 1, 3'600'000, &timeout);
  r.Finish();
  return job;
}

RetryPolicy ReadRetry(FieldReader r) {
  RetryPolicy p;
  const int64_t attempts = p.max_attempts, initial = p.initial_interval_ms,
                maximum = p.maximum_interval_ms;
  p.max_attempts = static_cast<int>(r.Integer("max_attempts", 1, 100, &attempts));
  p.initial_interval_ms = r.Integer("initial_interval_ms", 0, 86'400'000, &initial);
  p.backoff_coefficient = r.Number("backoff_coefficient", 1.0, 100.0, p.backoff_coefficient);
  p.maximum_interval_ms = r.Integer("maximum_interval_ms", 0, 86'400'000, &maximum);
  if (p.maximum_interval_ms < p.initial_interval_ms) {
    r.Fail("maximum_interval_ms", "must be >= initial_interval_ms (" +
                                      std::to_string(p.initial_interval_ms) + ")");
  }
  r.Finish();
  return p;
}

DownstreamSpec ReadDownstream(FieldReader r) {
  DownstreamSpec d;
  d.dedupe = r.Boolean("dedupe", false);
  d.faults = r.Strings("faults", false, true);
  for (size_t i = 0; i < d.faults.size(); ++i) {
    if (d.faults[i] != kFailBeforeCommit && d.faults[i] != kCommitNoAnswer && d.faults[i] != kDelay) {
      r.Fail("faults[" + std::to_string(i) + "]",
             "unknown downstream fault '" + d.faults[i] + "' (known: " + kFailBeforeCommit +
                 ", " + kCommitNoAnswer + ", " + kDelay + ")");
    }
  }
  d.fault_probability = r.Number("fault_probability", 0.0, 1.0, 0.0);
  if (d.fault_probability > 0 && d.faults.empty()) {
    r.Fail("fault_probability", "is above 0 but downstream.faults is empty");
  }
  r.Finish();
  return d;
}

CheckParams ReadCheckParams(FieldReader r) {
  CheckParams c;
  c.db = r.String("db", &c.db);
  c.state_file = r.String("state_file", &c.state_file);
  for (const auto& [key, value] : {std::pair{"db", c.db}, {"state_file", c.state_file}}) {
    fs::path p(value);
    if (value.empty() || p.is_absolute() ||
        std::any_of(p.begin(), p.end(), [](const fs::path& part) { return part == ".."; })) {
      r.Fail(key, "expected a path relative to the sandbox, got '" + value + "'");
    }
  }
  r.Finish();
  return c;
}

std::vector<std::string> ReadNames(FieldReader& r, const std::string& key, bool invariants) {
  static const std::regex kPointName(R"([A-Za-z0-9_.:/-]+)");
  std::vector<std::string> names = r.Strings(key, false, true);
  std::set<std::string> seen;
  for (size_t i = 0; i < names.size(); ++i) {
    std::string where = key + "[" + std::to_string(i) + "]";
    if (invariants && !OneOf(names[i], kInvariantNames)) {
      r.Fail(where, "unknown invariant '" + names[i] + "' (known: " + Join(kInvariantNames) + ")");
    }
    if (!invariants && !std::regex_match(names[i], kPointName)) {
      r.Fail(where, "a failpoint name is letters, digits and _.:/- only, got '" + names[i] + "'");
    }
    if (!seen.insert(names[i]).second) r.Fail(where, "'" + names[i] + "' is listed twice");
  }
  return names;
}

Scenario ReadScenario(const json& root, const fs::path& file) {
  if (!root.is_object()) throw FieldError("(root): expected an object, got " + DescribeJson(root));
  FieldReader r(root, "");
  Scenario s;
  s.file = file;
  s.name = r.String("name");
  if (s.name.empty()) r.Fail("name", "must not be empty");
  const std::string empty;
  s.description = r.String("description", &empty);
  s.job = ReadJob(r.Object("job"));
  if (!r.Has("job")) r.Fail("job", "is required (an object with a command)");
  s.dates = r.Strings("dates", true, false);
  for (size_t i = 0; i < s.dates.size(); ++i) {
    if (!IsRealDate(s.dates[i])) {
      r.Fail("dates[" + std::to_string(i) + "]", "expected a date YYYY-MM-DD, got '" + s.dates[i] + "'");
    }
  }
  s.failpoints = ReadNames(r, "failpoints", false);
  const int64_t one = 1, zero = 0;
  s.max_occurrence = static_cast<int>(r.Integer("max_occurrence", 1, 1000, &one));
  s.duplicate_trigger_probability = r.Number("duplicate_trigger_probability", 0.0, 1.0, 0.0);
  s.syscall_points = r.Boolean("syscall_points", false);
  s.models = r.Strings("models", false, false);
  if (s.models.empty()) s.models = {"process"};
  for (size_t i = 0; i < s.models.size(); ++i) {
    if (!OneOf(s.models[i], kModelNames)) {
      r.Fail("models[" + std::to_string(i) + "]",
             "unknown or unavailable persistence model '" + s.models[i] +
                 "' (available: " + Join(kModelNames) + ")");
    }
  }
  s.retry = ReadRetry(r.Object("retry"));
  s.downstream = ReadDownstream(r.Object("downstream"));
  s.check = ReadCheckParams(r.Object("check"));
  FieldReader inv = r.Object("invariants");
  s.must_hold = ReadNames(inv, "must_hold", true);
  s.expected_violations = ReadNames(inv, "expected_violations", true);
  inv.Finish();
  for (const auto& name : s.expected_violations) {
    if (std::find(s.must_hold.begin(), s.must_hold.end(), name) != s.must_hold.end()) {
      inv.Fail("expected_violations", "'" + name + "' is also in must_hold");
    }
  }
  if (s.must_hold.empty() && s.expected_violations.empty()) {
    r.Fail("invariants", "names no invariant (must_hold or expected_violations)");
  }
  s.trials = static_cast<int>(r.Integer("trials", 0, 10'000'000, &zero));
  r.Finish();
  return s;
}

}  // namespace

Result<Scenario> ParseScenario(std::string_view text, const fs::path& file) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    return Error::BadInput(file.string() + ": not valid JSON at byte " + std::to_string(e.byte) +
                           ": " + e.what());
  }
  try {
    return ReadScenario(root, file);
  } catch (const FieldError& e) {
    return Error::BadInput(file.string() + ": " + e.what());
  }
}

Result<Scenario> LoadScenario(const fs::path& file) {
  std::error_code ec;
  if (fs::is_directory(file, ec)) {
    return Error::BadInput(file.string() + ": is a directory, expected a scenario file");
  }
  auto text = ReadFile(file);
  if (!text) return text.error();
  return ParseScenario(text.value(), file);
}

Result<std::vector<Scenario>> LoadScenarios(const std::vector<fs::path>& paths) {
  std::vector<fs::path> files;
  for (const auto& p : paths) {
    std::error_code ec;
    if (!fs::exists(p, ec)) return Error::BadInput(p.string() + ": no such file or directory");
    if (!fs::is_directory(p, ec)) {
      files.push_back(p);
      continue;
    }
    std::vector<fs::path> found;
    for (const auto& entry : fs::directory_iterator(p, ec)) {
      if (entry.path().extension() == ".json" && !entry.is_directory()) found.push_back(entry.path());
    }
    if (ec) return Error::BadInput(p.string() + ": cannot list: " + ec.message());
    if (found.empty()) return Error::BadInput(p.string() + ": holds no *.json scenario");
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  std::vector<Scenario> out;
  std::set<std::string> names;
  for (const auto& f : files) {
    auto s = LoadScenario(f);
    if (!s) return s.error();
    if (!names.insert(s.value().name).second) {
      return Error::BadInput(f.string() + ": name: '" + s.value().name +
                             "' is already used by another scenario of this run");
    }
    out.push_back(std::move(s.value()));
  }
  return out;
}

}  // namespace killpoint
