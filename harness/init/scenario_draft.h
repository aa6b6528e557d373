// `killpoint init`'s reasoning, without processes: from what one fault-free run of a job
// touched (its crash points, its files, its calls to the downstream), a starting scenario
// with the crash points, persistence models and invariants that fit, each with the reason
// and the page that explains it (JSON has no comments: the CLI prints the reasons).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace killpoint {

// A file left in the sandbox by the run: what its first bytes say it is.
struct SurveyedFile {
  enum class Kind { kOther, kSqlite, kJsonObject };
  std::string path;  // relative to the sandbox
  Kind kind = Kind::kOther;
};

// A committed or refused `POST /publish`, as the downstream recorded it.
struct SurveyedPublish {
  std::string key;
  std::string biz_date;
  std::string idempotency_key;  // the header, "" without one
};

// What one fault-free attempt of a job did (init/job_survey.h gathers it).
struct JobSurvey {
  std::string name;                  // the scenario's name
  std::vector<std::string> command;  // job.command as it will be written
  std::vector<std::string> setup;    // job.setup as it will be written; empty: none
  std::vector<std::string> dates;    // the first is the one the survey ran
  std::vector<std::string> points;   // crash points passed, distinct, in order
  std::vector<SurveyedFile> files;   // files in the sandbox afterwards, sorted
  std::vector<SurveyedPublish> publishes;
  int queries = 0;  // GET /deliveries
  int alerts = 0;   // POST /alert
};

// Why the draft has a field: "field: why (docs/page.md, "Section")".
struct DraftNote {
  std::string field;
  std::string why;
  std::string doc;
};

struct ScenarioDraft {
  nlohmann::ordered_json scenario;
  std::vector<DraftNote> notes;
};

ScenarioDraft DraftScenario(const JobSurvey& survey);

// The pattern of a crash point's family: a syscall point's operation on any path
// (`rename:<tmp1>:state.json` -> `rename:*`), a downstream point's request at any moment
// (`downstream:/publish:after_commit` -> `downstream:/publish:*`), a named failpoint itself.
// Families, not names, so that the scenario still fits when a fix changes the files: saving
// through a temporary file instead of in place keeps `open:*`, `write:*` and `close:*`.
std::string PointPattern(const std::string& point);

// The sandbox paths a syscall point names: `write:a` -> {a}, `rename:a:b` -> {a, b} (split at
// the first ':', so a source path with a ':' is cut wrong: only for the listing), a downstream
// point or a named failpoint -> {}.
std::vector<std::string> PointPaths(const std::string& point);

}  // namespace killpoint
