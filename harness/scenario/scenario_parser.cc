#include "scenario/scenario_parser.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <map>
#include <set>

#include "scenario/check_reader.h"
#include "scenario/fault_spec_reader.h"
#include "scenario/field_reader.h"
#include "scenario/json_text.h"
#include "scenario/service_reader.h"
#include "scenario/vocabulary.h"
#include "util/atomic_file.h"
#include "util/printable.h"
#include "util/slug.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// No std::regex in this file: libstdc++'s matcher recurses once per character, and a long
// enough string in a hostile scenario overflows the stack.
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool IsRealDate(const std::string& s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (!IsDigit(s[i])) return false;
  }
  std::chrono::year_month_day ymd{
      std::chrono::year{std::stoi(s.substr(0, 4))},
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

bool IsPointNameChar(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || IsDigit(c) || c == '_' || c == '.' ||
         c == ':' || c == '/' || c == '-';
}

constexpr size_t kMaxNameLength = 200;

// Why `name` cannot be a crash point name, or "" when it can: the protocol's characters, a
// temporary file's alias "<tmpN>" (docs/syscall-shim.md) and, with `patterns`, `*` and `?`.
std::string PointNameProblem(const std::string& name, bool patterns) {
  if (name.empty() || name.size() > 4096) return "a failpoint name is 1 to 4096 characters long";
  const bool pattern = patterns && name.find_first_of("*?") != std::string::npos;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (IsPointNameChar(c) || (patterns && (c == '*' || c == '?')) ||
        (pattern && (c == '<' || c == '>')))
      continue;
    if (c == '<' && name.compare(i, 4, "<tmp") == 0) {
      size_t end = i + 4;
      while (end < name.size() && IsDigit(name[end])) ++end;
      if (end > i + 4 && end < name.size() && name[end] == '>') {
        i = end;
        continue;
      }
    }
    return std::string(
               "a failpoint name is letters, digits and _.:/- only, with <tmpN> for a temporary "
               "file") +
           (patterns ? ", or a pattern with * and ?" : "") + ", got '" + name + "'";
  }
  return "";
}

bool LooksLikePlaceholder(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(),
                                      [](char c) { return (c >= 'a' && c <= 'z') || c == '_'; });
}

// Each "{name}" (innermost braces, a name of lower-case letters and _) must be a known
// placeholder; other braces are the job's own (a shell's `printf '{}'`, JSON in an argument).
void CheckPlaceholders(FieldReader& r, const std::string& where, const std::string& arg) {
  for (size_t open = arg.find('{'); open != std::string::npos; open = arg.find('{', open + 1)) {
    size_t close = arg.find_first_of("{}", open + 1);
    if (close == std::string::npos || arg[close] != '}') continue;
    std::string name = arg.substr(open + 1, close - open - 1);
    if (!LooksLikePlaceholder(name)) continue;
    if (!OneOf(name, kPlaceholders)) {
      r.Fail(where, "unknown placeholder {" + name + "} (known: " + Join(kPlaceholders) + ")");
    }
  }
}

// argv and environment strings go to execve: a NUL byte would silently cut them short.
void CheckExecString(FieldReader& r, const std::string& where, const std::string& value) {
  if (value.find('\0') != std::string::npos) r.Fail(where, "must not contain a NUL character");
}

void CheckArgv(FieldReader& r, const std::string& key, const std::vector<std::string>& argv) {
  for (size_t i = 0; i < argv.size(); ++i) {
    std::string where = key + "[" + std::to_string(i) + "]";
    CheckExecString(r, where, argv[i]);
    CheckPlaceholders(r, where, argv[i]);
  }
}

void CheckEnv(FieldReader& r, const std::map<std::string, std::string>& env) {
  for (const auto& [name, value] : env) {
    std::string where = "env." + name;
    if (name.empty() || name.find('=') != std::string::npos ||
        name.find('\0') != std::string::npos) {
      r.Fail(where, "an environment variable name must be non-empty, without '=' or NUL");
    }
    if (name.rfind("KILLPOINT_", 0) == 0)
      r.Fail(where, "KILLPOINT_* variables are set by the harness");
    CheckExecString(r, where, value);
    CheckPlaceholders(r, where, value);
  }
}

JobSpec ReadJob(FieldReader r) {
  JobSpec job;
  job.command = r.Strings("command", true, false);
  if (job.command[0].empty()) r.Fail("command[0]", "the program must not be empty");
  CheckArgv(r, "command", job.command);
  job.setup = r.Strings("setup", false, true);
  if (!job.setup.empty() && job.setup[0].empty())
    r.Fail("setup[0]", "the program must not be empty");
  CheckArgv(r, "setup", job.setup);
  job.env = r.StringMap("env");
  CheckEnv(r, job.env);
  const int64_t timeout = 10000;
  job.timeout_ms = r.Integer("timeout_ms", 1, 3'600'000, &timeout);
  const int64_t max_file = job.max_file_bytes;
  job.max_file_bytes = r.Integer("max_file_bytes", 0, int64_t{1} << 50, &max_file);
  r.Finish();
  return job;
}

// Retry strategies (docs/retry.md): jitter, non-retryable exit codes, rate limit, breaker.
void ReadRetryStrategies(FieldReader& r, RetryPolicy& p) {
  const std::string none(kJitterNames.NameOf(Jitter::kNone));
  const std::string jitter = r.String("jitter", &none);
  if (auto named = kJitterNames.Named(jitter)) {
    p.jitter = *named;
  } else {
    r.Fail("jitter", "unknown jitter '" + jitter + "' (known: " + kJitterNames.Listed() + ")");
  }
  for (int64_t code : r.Integers("non_retryable_exit_codes", 1, 255)) {
    p.non_retryable_exit_codes.push_back(static_cast<int>(code));
  }
  const int64_t zero = 0;
  FieldReader rate = r.Object("rate_limit");
  p.rate_limit.max_attempts = static_cast<int>(rate.Integer("max_attempts", 0, 1000, &zero));
  p.rate_limit.window_ms = rate.Integer("window_ms", 0, 86'400'000, &zero);
  if (p.rate_limit.max_attempts > 0 && p.rate_limit.window_ms == 0) {
    rate.Fail("window_ms", "must be above 0 when max_attempts is set");
  }
  rate.Finish();
  FieldReader breaker = r.Object("circuit_breaker");
  p.circuit_breaker.failure_threshold =
      static_cast<int>(breaker.Integer("failure_threshold", 0, 1000, &zero));
  p.circuit_breaker.open_ms = breaker.Integer("open_ms", 0, 86'400'000, &zero);
  if (p.circuit_breaker.failure_threshold > 0 && p.circuit_breaker.open_ms == 0) {
    breaker.Fail("open_ms", "must be above 0 when failure_threshold is set");
  }
  breaker.Finish();
}

// `job`: the job's own policy (job_retry), which may also ask for a reload before each retry.
RetryPolicy ReadRetry(FieldReader r, bool job = false) {
  RetryPolicy p;
  const int64_t attempts = p.max_attempts, initial = p.initial_interval_ms,
                maximum = p.maximum_interval_ms;
  p.max_attempts = static_cast<int>(r.Integer("max_attempts", 1, 100, &attempts));
  p.initial_interval_ms = r.Integer("initial_interval_ms", 0, 86'400'000, &initial);
  p.backoff_coefficient = r.Number("backoff_coefficient", 1.0, 100.0, p.backoff_coefficient);
  p.maximum_interval_ms = r.Integer("maximum_interval_ms", 0, 86'400'000, &maximum);
  if (p.maximum_interval_ms < p.initial_interval_ms) {
    r.Fail("maximum_interval_ms",
           "must be >= initial_interval_ms (" + std::to_string(p.initial_interval_ms) + ")");
  }
  ReadRetryStrategies(r, p);
  if (job) p.reload_before_retry = r.Boolean("reload_before_retry", false);
  r.Finish();
  return p;
}

DownstreamSpec ReadDownstream(FieldReader r) {
  DownstreamSpec d;
  d.dedupe = r.Boolean("dedupe", false);
  d.faults = r.Strings("faults", false, true);
  for (size_t i = 0; i < d.faults.size(); ++i) {
    if (d.faults[i] != kFailBeforeCommit && d.faults[i] != kCommitNoAnswer &&
        d.faults[i] != kDelay) {
      r.Fail("faults[" + std::to_string(i) + "]", "unknown downstream fault '" + d.faults[i] +
                                                      "' (known: " + kFailBeforeCommit + ", " +
                                                      kCommitNoAnswer + ", " + kDelay + ")");
    }
  }
  r.Unique("faults", d.faults);
  d.fault_probability = r.Number("fault_probability", 0.0, 1.0, 0.0);
  const std::string by_key = kDedupeByKey;
  d.dedupe_by = r.String("dedupe_by", &by_key);
  if (d.dedupe_by != kDedupeByKey && d.dedupe_by != kDedupeByIdempotencyKey) {
    r.Fail("dedupe_by", "expected \"key\" or \"idempotency_key\", got '" + d.dedupe_by + "'");
  }
  if (r.Has("dedupe_by") && !d.dedupe) r.Fail("dedupe_by", "is set but dedupe is false");
  if (d.fault_probability > 0 && d.faults.empty()) {
    r.Fail("fault_probability", "is above 0 but downstream.faults is empty");
  }
  r.Finish();
  return d;
}

CheckParams ReadCheckParams(FieldReader r) {
  CheckParams c;
  c.db = r.String("db", &c.db);
  c.state_file = r.String("state_file", &c.state_file);  // absent: the job has none
  for (const auto& [key, value] : {std::pair{"db", c.db}, {"state_file", c.state_file}}) {
    if (!r.Has(key) && value.empty()) continue;
    if (!IsSandboxPath(value))
      r.Fail(key, "expected a path relative to the sandbox, got '" + value + "'");
  }
  c.settlement = ReadSettlementSchema(r.Object("settlement"));
  r.Finish();
  return c;
}

// Invariant names are the built-ins and the scenario's own checks (`checks`, nullptr for
// failpoint names).
std::vector<std::string> ReadNames(FieldReader& r, const std::string& key,
                                   const std::map<std::string, SqlCheck>* checks) {
  const bool invariants = checks != nullptr;
  std::vector<std::string> names = r.Strings(key, false, true);
  std::set<std::string> seen;
  for (size_t i = 0; i < names.size(); ++i) {
    std::string where = key + "[" + std::to_string(i) + "]";
    if (invariants && !OneOf(names[i], kInvariantNames) && !checks->count(names[i])) {
      std::string own;
      for (const auto& [name, check] : *checks) own += ", " + name;
      r.Fail(where, "unknown invariant '" + names[i] + "' (known: " + Join(kInvariantNames) + own +
                        (checks->empty() ? "; or declare it in checks" : "") + ")");
    }
    if (!invariants) {
      std::string problem = PointNameProblem(names[i], key == "failpoints");
      if (!problem.empty()) r.Fail(where, problem);
    }
    if (!seen.insert(names[i]).second) r.Fail(where, "'" + names[i] + "' is listed twice");
  }
  return names;
}

// An ASCII letter or digit, or a visible character beyond ASCII (util/printable.h): the part of
// a name its Slug keeps. Without Unicode's tables, every visible character beyond ASCII counts
// as a letter (日本語, é).
bool HasLetterOrDigit(const std::string& name) {
  for (size_t i = 0; i < name.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(name[i]);
    uint32_t cp = 0;
    if (c < 0x80 ? std::isalnum(c) != 0 : Utf8At(name, i, cp) > 0 && !IsInvisibleCodePoint(cp))
      return true;
  }
  return false;
}

// The name becomes a folder of the output (suite's Slug): it needs a letter or digit, so that
// it can be neither empty nor "." nor "..".
void CheckScenarioName(FieldReader& r, const std::string& name) {
  if (name.empty()) r.Fail("name", "must not be empty");
  if (name.size() > kMaxNameLength) {
    r.Fail("name", "must be at most " + std::to_string(kMaxNameLength) + " bytes, got " +
                       std::to_string(name.size()));
  }
  if (std::any_of(name.begin(), name.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; })) {
    r.Fail("name", "must not contain control characters");
  }
  if (!HasLetterOrDigit(name))
    r.Fail("name", "must contain a letter or a digit, got '" + name + "'");
}

// Fails at the second occurrence of a value in a list.
// A message for a terminal: printable, and short enough to read (the path comes first).
std::string OneLine(const std::string& message) { return Printable(message, 1000); }

// A command check's {scenario_dir} and {dates}, known once the scenario is read; {workdir} is
// the sandbox the check runs on, put in place then (check/command_checks.cc).
void PlaceCheckCommands(Scenario& s) {
  std::error_code ec;
  std::string dir = fs::absolute(s.file, ec).parent_path().string();
  std::string dates;
  for (const auto& d : s.dates) dates += (dates.empty() ? "" : ",") + d;
  for (auto& [name, check] : s.checks) {
    for (std::string& arg : check.command) {
      for (const auto& [token, value] :
           {std::pair<std::string, std::string>{"{scenario_dir}", dir}, {"{dates}", dates}}) {
        for (size_t at = arg.find(token); at != std::string::npos;
             at = arg.find(token, at + value.size())) {
          arg.replace(at, token.size(), value);
        }
      }
    }
  }
}

Scenario ReadScenario(const json& root, const fs::path& file) {
  if (!root.is_object()) throw FieldError("(root): expected an object, got " + DescribeJson(root));
  FieldReader r(root, "");
  Scenario s;
  s.file = file;
  s.name = r.String("name");
  CheckScenarioName(r, s.name);
  const std::string empty;
  s.description = r.String("description", &empty);
  s.job = ReadJob(r.Object("job"));
  if (!r.Has("job")) r.Fail("job", "is required (an object with a command)");
  s.dates = r.Strings("dates", true, false);
  for (size_t i = 0; i < s.dates.size(); ++i) {
    if (!IsRealDate(s.dates[i])) {
      r.Fail("dates[" + std::to_string(i) + "]",
             "expected a date YYYY-MM-DD, got '" + s.dates[i] + "'");
    }
  }
  r.Unique("dates", s.dates);
  s.failpoints = ReadNames(r, "failpoints", nullptr);
  s.hold_points = ReadNames(r, "hold_points", nullptr);
  for (size_t i = 0; i < s.hold_points.size(); ++i) {
    if (s.hold_points[i].starts_with("downstream:")) {
      r.Fail("hold_points[" + std::to_string(i) + "]",
             "'" + s.hold_points[i] +
                 "' is a downstream point: the downstream kills there, it never holds the job "
                 "(list it in failpoints)");
    }
    if (std::count(s.failpoints.begin(), s.failpoints.end(), s.hold_points[i])) {
      r.Fail("hold_points[" + std::to_string(i) + "]",
             "'" + s.hold_points[i] +
                 "' is also in failpoints: a point is either killed at or only held");
    }
  }
  const int64_t one = 1, zero = 0;
  s.max_occurrence = static_cast<int>(r.Integer("max_occurrence", 1, 1000, &one));
  s.duplicate_trigger_probability = r.Number("duplicate_trigger_probability", 0.0, 1.0, 0.0);
  s.syscall_points = r.Boolean("syscall_points", false);
  // The shim on and no point listed: every file operation in the sandbox (docs/scenarios.md).
  if (s.syscall_points && s.failpoints.empty()) s.failpoints = {kEverySyscallPoint};
  std::vector<std::string> models = r.Strings("models", false, false);
  if (models.empty()) models = {std::string(NameOf(PersistenceModel::kProcess))};
  s.models.clear();
  for (size_t i = 0; i < models.size(); ++i) {
    Result<PersistenceModel> m = ParseModel(models[i]);
    if (m)
      s.models.push_back(m.value());
    else
      r.Fail("models[" + std::to_string(i) + "]", m.error().message);
  }
  r.Unique("models", models);
  s.retry = ReadRetry(r.Object("retry"));
  if (r.Has("job_retry")) s.job_retry = ReadRetry(r.Object("job_retry"), true);
  s.downstream = ReadDownstream(r.Object("downstream"));
  s.faults = ReadFaults(r.Object("faults"), {s.failpoints, s.hold_points});  // docs/faults.md
  for (size_t i = 0; i < s.hold_points.size(); ++i) {
    const std::string& point = s.hold_points[i];
    if (!std::count(s.faults.pause.points.begin(), s.faults.pause.points.end(), point) &&
        !std::count(s.faults.overlap.points.begin(), s.faults.overlap.points.end(), point) &&
        s.faults.overlap.second_holds_at != point &&
        !std::count(s.faults.server.points.begin(), s.faults.server.points.end(), point)) {
      r.Fail("hold_points[" + std::to_string(i) + "]",
             "'" + point +
                 "' is a point of neither faults.pause, faults.overlap nor faults.server, so "
                 "nothing would hold the job there");
    }
  }
  s.check = ReadCheckParams(r.Object("check"));
  auto services = root.find("services");
  s.services = ReadServices(r.Object("services"), services == root.end() ? nullptr : &*services);
  auto checks = root.find("checks");
  s.checks = ReadChecks(r.Object("checks"), checks == root.end() ? nullptr : &*checks);
  CheckServiceRefs(r, s);
  CheckNetFaultServices(r, s);     // docs/services.md, "Faults between the job and its services"
  CheckServerFaultServices(r, s);  // docs/services.md, "Server faults"
  FieldReader inv = r.Object("invariants");
  s.must_hold = ReadNames(inv, "must_hold", &s.checks);
  s.expected_violations = ReadNames(inv, "expected_violations", &s.checks);
  inv.Finish();
  for (const auto& [name, check] : s.checks) {
    if (!std::count(s.must_hold.begin(), s.must_hold.end(), name) &&
        !std::count(s.expected_violations.begin(), s.expected_violations.end(), name)) {
      r.Fail("checks." + name,
             "is named in neither invariants.must_hold nor invariants.expected_violations");
    }
    if (check.after_every_crash && s.failpoints.empty() && !s.syscall_points) {
      r.Fail("checks." + name + ".after_every_crash",
             "no attempt can crash: the scenario lists no failpoints and sets no syscall_points");
    }
  }
  for (const auto& name : s.expected_violations) {
    if (std::find(s.must_hold.begin(), s.must_hold.end(), name) != s.must_hold.end()) {
      inv.Fail("expected_violations", "'" + name + "' is also in must_hold");
    }
  }
  if (s.must_hold.empty() && s.expected_violations.empty()) {
    r.Fail("invariants", "names no invariant (must_hold or expected_violations)");
  }
  s.trials = static_cast<int>(r.Integer("trials", 0, 10'000'000, &zero));
  if (r.Has("min_exercised")) s.min_exercised = r.Number("min_exercised", 0.0, 1.0, 0.0);
  r.Finish();
  PlaceCheckCommands(s);
  return s;
}

}  // namespace

Result<Scenario> ParseScenario(std::string_view text, const fs::path& file) {
  auto fail = [&](const std::string& what) {
    return Error::BadInput(OneLine(file.string() + ": " + what));
  };
  if (text.size() > kMaxScenarioBytes) {
    return fail("(root): " + std::to_string(text.size()) + " bytes, a scenario is at most " +
                std::to_string(kMaxScenarioBytes));
  }
  if (auto bad = CheckJsonText(text)) return fail(*bad);
  try {
    return ReadScenario(json::parse(text), file);
  } catch (const FieldError& e) {
    return fail(e.what());
  } catch (const std::exception& e) {  // not expected once CheckJsonText passed; never a crash
    return fail(std::string("(root): cannot be read: ") + e.what());
  }
}

Result<Scenario> LoadScenario(const fs::path& file) {
  std::error_code ec;
  auto bad = [&](const std::string& what) {
    return Error::BadInput(OneLine(file.string() + ": " + what));
  };
  fs::file_status st = fs::status(file, ec);
  // ELOOP (a symlink loop), EACCES...: not "no such file".
  if (ec && ec != std::errc::no_such_file_or_directory)
    return bad("cannot be read: " + ec.message());
  if (ec || !fs::exists(st)) return bad("no such file");
  if (fs::is_directory(st)) return bad("is a directory, expected a scenario file");
  // A FIFO or a device would block or never end.
  if (!fs::is_regular_file(st)) return bad("is not a regular file");
  auto size = fs::file_size(file, ec);
  if (!ec && size > kMaxScenarioBytes) {
    return bad("(root): " + std::to_string(size) + " bytes, a scenario is at most " +
               std::to_string(kMaxScenarioBytes));
  }
  auto text = ReadFile(file);
  if (!text) return Error::BadInput(Printable(text.error().message));
  return ParseScenario(text.value(), file);
}

Result<std::vector<Scenario>> LoadScenarios(const std::vector<fs::path>& paths) {
  std::vector<fs::path> files;
  for (const auto& p : paths) {
    std::error_code ec;
    fs::file_status st = fs::status(p, ec);
    // A symlink loop or an unreadable path: LoadScenario says which.
    if (ec || !fs::is_directory(st)) {
      if (!ec && !fs::exists(st))
        return Error::BadInput(Printable(p.string() + ": no such file or directory"));
      files.push_back(p);
      continue;
    }
    std::vector<fs::path> found;
    // Subfolders too (scenarios/catalogue/...), in path order; symlinked folders are not followed.
    // An entry whose type cannot be read (a symlink loop) is taken as a file: LoadScenario then
    // names it and its error.
    for (fs::recursive_directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec)) {
      std::error_code type_ec;
      bool dir = it->is_directory(type_ec);
      if (it->path().extension() == ".json" && (type_ec || !dir)) found.push_back(it->path());
    }
    if (ec) return Error::BadInput(Printable(p.string() + ": cannot list: " + ec.message()));
    if (found.empty()) return Error::BadInput(Printable(p.string() + ": holds no *.json scenario"));
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  std::vector<Scenario> out;
  std::set<std::string> names;
  std::map<std::string, std::string> slugs;  // output folder -> the name that has it
  for (const auto& f : files) {
    auto s = LoadScenario(f);
    if (!s) return s.error();
    if (!names.insert(s.value().name).second) {
      return Error::BadInput(Printable(f.string() + ": name: '" + s.value().name +
                                       "' is already used by another scenario of this run"));
    }
    // Two names, one output folder ("a b" and "a:b"): the second would overwrite the first.
    auto [other, fresh] = slugs.emplace(Slug(s.value().name), s.value().name);
    if (!fresh) {
      return Error::BadInput(
          Printable(f.string() + ": name: '" + s.value().name + "' and '" + other->second +
                    "' of another scenario of this run share the output folder '" + other->first +
                    "': rename one"));
    }
    out.push_back(std::move(s.value()));
  }
  return out;
}

}  // namespace killpoint
