#include "init/scenario_draft.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <string_view>

#include "scenario/vocabulary.h"

namespace killpoint {
namespace {

using ordered_json = nlohmann::ordered_json;

bool IsSyscallPoint(const std::string& point) {
  std::string op = point.substr(0, point.find(':'));
  return point.find(':') != std::string::npos &&
         std::find(kSyscallOps.begin(), kSyscallOps.end(), op) != kSyscallOps.end();
}

template <typename T>
void AddOnce(std::vector<T>& list, const T& item) {
  if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
}

std::vector<std::string> Patterns(const JobSurvey& s) {
  std::vector<std::string> out;
  for (const std::string& p : s.points) AddOnce(out, PointPattern(p));
  return out;
}

// The JSON state file: the first JSON object the job renamed a file onto, else the first it
// wrote; "" when it left none.
std::string StateFile(const JobSurvey& s) {
  std::string written;
  for (const SurveyedFile& f : s.files) {
    if (f.kind != SurveyedFile::Kind::kJsonObject) continue;
    for (const std::string& p : s.points) {
      if (p.rfind("rename:", 0) == 0 && p.size() > f.path.size() &&
          p.compare(p.size() - f.path.size() - 1, std::string::npos, ":" + f.path) == 0)
        return f.path;
    }
    if (written.empty()) written = f.path;
  }
  return written;
}

std::vector<std::string> Databases(const JobSurvey& s) {
  std::vector<std::string> out;
  for (const SurveyedFile& f : s.files)
    if (f.kind == SurveyedFile::Kind::kSqlite) out.push_back(f.path);
  return out;
}

// Whether some date got more than one publish under different keys (a refund per order): then
// the invariant counts per key, not per date.
bool SeveralKeysPerDate(const JobSurvey& s) {
  std::map<std::string, std::set<std::string>> keys;
  for (const SurveyedPublish& p : s.publishes) keys[p.biz_date].insert(p.key);
  return std::any_of(keys.begin(), keys.end(), [](const auto& k) { return k.second.size() > 1; });
}

bool SendsIdempotencyKeys(const JobSurvey& s) {
  return std::any_of(s.publishes.begin(), s.publishes.end(),
                     [](const SurveyedPublish& p) { return !p.idempotency_key.empty(); });
}

class Drafter {
 public:
  explicit Drafter(const JobSurvey& s) : s_(s) {}

  ScenarioDraft Draft() {
    ordered_json& j = draft_.scenario;
    j["name"] = s_.name;
    j["description"] =
        "Drafted by killpoint init from one run of the job: edit it (docs/writing-a-job.md)";
    j["job"] = {{"command", s_.command}};
    if (!s_.setup.empty()) {
      j["job"]["setup"] = s_.setup;
      Note("job.setup",
           "run once in each trial's fresh sandbox before its first date (--setup): what the "
           "job expects to find there",
           "docs/writing-a-job.md, \"The contract\"");
    }
    j["dates"] = s_.dates;
    Note("dates", "a trial runs the first 1..N dates in order; the job reads KILLPOINT_BIZ_DATE",
         "docs/writing-a-job.md, \"The contract\"");
    j["syscall_points"] = true;
    j["failpoints"] = Patterns(s_);
    Note("failpoints",
         "the kinds of crash point the run passed, each operation on any file and each "
         "downstream request at any moment (`killpoint points` lists them one by one; `*:*` is "
         "every file operation and request, a fix's new ones too)",
         "docs/scenarios.md, \"Crash points you cannot name in advance\"");
    j["min_exercised"] = 0.75;
    Note("min_exercised",
         "a retry may take another path than the first attempt (a date already published is "
         "not published again), so a kill planned there may never fire: every planned kill "
         "must fire in 3 trials of 4, else the scenario is not exercised (exit 4)",
         "docs/reports.md, \"Not exercised\"");
    j["models"] = {"process", "power"};
    Note("models", "a kill -9 (process) and a power cut (power: only what was fsync'ed survives)",
         "docs/persistence-models.md");
    Publishes();
    Files();
    Must("converges", "every date must end with an attempt that exits 0 once the faults stop",
         "docs/writing-a-job.md, \"What the built-in invariants read\"");
    j["invariants"] = {{"must_hold", must_hold_}};
    return std::move(draft_);
  }

 private:
  void Note(std::string field, std::string why, std::string doc) {
    draft_.notes.push_back({std::move(field), std::move(why), std::move(doc)});
  }

  void Must(const std::string& invariant, std::string why, std::string doc) {
    must_hold_.push_back(invariant);
    Note("invariants.must_hold: " + invariant, std::move(why), std::move(doc));
  }

  void Publishes() {
    if (s_.publishes.empty()) return;
    const char* doc = "docs/writing-a-job.md, \"The downstream service\"";
    if (SendsIdempotencyKeys(s_)) {
      draft_.scenario["downstream"] = {{"dedupe", true}, {"dedupe_by", "idempotency_key"}};
      Note("downstream",
           "the job sends an Idempotency-Key: the downstream deduplicates by it, as a provider "
           "honouring the header does (remove it if yours does not)",
           doc);
    }
    if (SeveralKeysPerDate(s_)) {
      Must("one_delivery_per_key", "the job publishes several keys a date: each delivered once",
           doc);
    } else {
      Must("no_double_publish", "the job publishes once per date (the body's biz_date)", doc);
    }
    Must("no_silent_loss",
         "a date must be delivered, or its loss reported with POST /alert (no_loss instead if a "
         "delivery may never be given up)",
         doc);
  }

  void Files() {
    ordered_json check = ordered_json::object();
    std::string state = StateFile(s_);
    std::vector<std::string> dbs = Databases(s_);
    if (!state.empty()) check["state_file"] = state;
    if (!dbs.empty()) check["db"] = dbs.front();
    if (!check.empty()) {
      draft_.scenario["check"] = check;
      Must("state_readable",
           (state.empty() ? "" : state + " must parse as a JSON object (or be absent)") +
               std::string(!state.empty() && !dbs.empty() ? "; " : "") +
               (dbs.empty() ? "" : dbs.front() + " must pass PRAGMA integrity_check") +
               ": the job can start again",
           "docs/writing-a-job.md, \"Saving state so that a kill cannot break it\"");
    }
    ordered_json checks = ordered_json::object();
    for (size_t i = 0; i < dbs.size(); ++i) {
      std::string name = "your_rule" + (i == 0 ? std::string() : "_" + std::to_string(i + 1));
      checks[name] = {{"db", dbs[i]},
                      {"sql", "SELECT 1 WHERE 0"},
                      {"says",
                       "REPLACE: a query returning the rows that break your rule, and "
                       "what one row means"}};
      Must(name,
           "a placeholder that always holds: write the SQL that returns the rows of " + dbs[i] +
               " breaking your rule (one row per date, totals equal to their source)",
           "docs/scenarios.md, \"Your own invariants\"");
    }
    if (!checks.empty()) draft_.scenario["checks"] = checks;
  }

  const JobSurvey& s_;
  ScenarioDraft draft_;
  std::vector<std::string> must_hold_;
};

}  // namespace

std::string PointPattern(const std::string& point) {
  if (IsSyscallPoint(point)) return point.substr(0, point.find(':')) + ":*";
  if (point.rfind("downstream:", 0) == 0) return point.substr(0, point.rfind(':')) + ":*";
  return point;
}

std::vector<std::string> PointPaths(const std::string& point) {
  if (!IsSyscallPoint(point)) return {};
  std::string rest = point.substr(point.find(':') + 1);
  if (point.rfind("rename:", 0) != 0) return {rest};
  size_t colon = rest.find(':');
  if (colon == std::string::npos) return {rest};
  return {rest.substr(0, colon), rest.substr(colon + 1)};
}

ScenarioDraft DraftScenario(const JobSurvey& survey) { return Drafter(survey).Draft(); }

}  // namespace killpoint
