#include "init/job_survey.h"

#include <algorithm>
#include <fstream>
#include <iterator>

#include "history/event_registry.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;

constexpr std::uintmax_t kLargestStateFile = 4 << 20;

bool IsScratch(const fs::path& rel) {
  std::string s = rel.generic_string();
  for (const char* end : {"-journal", "-wal", "-shm", ".pyc"}) {
    std::string e = end;
    if (s.size() >= e.size() && s.compare(s.size() - e.size(), e.size(), e) == 0) return true;
  }
  return s.find("__pycache__") != std::string::npos;
}

std::vector<SurveyedFile> FilesIn(const fs::path& work) {
  std::vector<SurveyedFile> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(work, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    fs::path rel = fs::relative(it->path(), work, ec);
    if (IsScratch(rel)) continue;
    out.push_back({rel.generic_string(), KindOfFile(it->path())});
  }
  std::sort(out.begin(), out.end(),
            [](const SurveyedFile& a, const SurveyedFile& b) { return a.path < b.path; });
  return out;
}

void ReadEvents(const std::vector<Event>& events, const std::string& date, JobSurvey& s) {
  for (const Event& e : events) {
    if (e.type == event::Failpoint::kType && e.biz_date == date) {
      std::string point = Read<event::Failpoint>(e).point;
      if (!point.empty() && std::find(s.points.begin(), s.points.end(), point) == s.points.end())
        s.points.push_back(point);
    } else if (auto p = As<event::Publish>(e)) {
      s.publishes.push_back({p->key, p->biz_date, p->idempotency_key});
    } else if (e.type == event::Query::kType) {
      ++s.queries;
    } else if (e.type == event::Alert::kType) {
      ++s.alerts;
    }
  }
}

std::optional<StartFailure> Failure(const std::vector<Event>& events) {
  std::optional<StartFailure> first;
  for (const Event& e : events) {
    if (e.type != event::Exit::kType) continue;
    event::Exit exit = Read<event::Exit>(e);
    if (exit.Succeeded()) return std::nullopt;
    if (!first) first = StartFailure{exit.code, exit.stderr_tail};
  }
  return first;
}

}  // namespace

SurveyedFile::Kind KindOfFile(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  char head[16] = {};
  in.read(head, sizeof head);
  if (in.gcount() == 16 && std::string(head, 16) == std::string("SQLite format 3\0", 16))
    return SurveyedFile::Kind::kSqlite;
  std::error_code ec;
  if (fs::file_size(file, ec) > kLargestStateFile || ec) return SurveyedFile::Kind::kOther;
  std::ifstream text(file, std::ios::binary);
  std::string content((std::istreambuf_iterator<char>(text)), std::istreambuf_iterator<char>());
  nlohmann::json j = nlohmann::json::parse(content, nullptr, false);
  return !j.is_discarded() && j.is_object() ? SurveyedFile::Kind::kJsonObject
                                            : SurveyedFile::Kind::kOther;
}

Result<SurveyOutcome> SurveyJob(Scenario s, const TrialOptions& options) {
  s.syscall_points = true;
  std::string date = s.dates.front();
  Plan plan{s.name, 0, 0, {{date, 1, {}}}};
  TrialOptions o = options;
  o.keep_sandbox = false;
  o.every_point_waits = true;  // each point recorded, in order
  auto trial = RunTrial(s, plan, o);
  if (!trial) return trial.error();
  SurveyOutcome out;
  ReadEvents(trial.value().events, date, out.survey);
  out.survey.files = FilesIn(trial.value().sandbox.work());
  out.failed = Failure(trial.value().events);
  return out;
}

}  // namespace killpoint
