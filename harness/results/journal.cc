#include "results/journal.h"

#include <set>
#include <string_view>

#include "history/history_log.h"
#include "results/layout.h"
#include "util/atomic_file.h"
#include "util/json_error.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

// A journal split into its complete lines (without '\n') and whether a torn tail followed.
struct Lines {
  std::vector<std::string_view> lines;
  bool torn = false;
};

Lines Split(std::string_view text) {
  Lines out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      out.torn = true;
      break;
    }
    out.lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

Result<std::string> ReadIfThere(const fs::path& file) {
  std::error_code ec;
  if (!fs::exists(file, ec)) return std::string();
  auto text = ReadFile(file);
  if (!text) return Error::BadInput(text.error().message);
  return text;
}

// A whole line is the complete record; a line that does not parse at the very end of the
// file (no newline after it) is the torn one. Anything else is damage the resume will not guess
// about.
Status ParseTrials(const fs::path& file, const Lines& lines, std::map<int, FinishedTrial>& out) {
  for (size_t i = 0; i < lines.lines.size(); ++i) {
    std::string where = file.string() + ":" + std::to_string(i + 1);
    int trial = 0;
    FinishedTrial t;
    try {
      Json j = Json::parse(lines.lines[i]);
      trial = j.at("trial").get<int>();
      j.at("plan").get_to(t.plan);
      j.at("verdicts").get_to(t.verdicts);
      t.exercise = ExerciseOfLine(j);
    } catch (const Json::exception& e) {
      return Error::BadInput(where + ": damaged trials journal (not a torn last line): " +
                             JsonErrorText(e) + "; nothing was changed");
    }
    if (trial < 0 || t.plan.trial != trial) {
      return Error::BadInput(where + ": damaged trials journal: trial " + std::to_string(trial) +
                             " with the plan of trial " + std::to_string(t.plan.trial) +
                             "; nothing was changed");
    }
    if (!out.emplace(trial, std::move(t)).second) {
      return Error::BadInput(where + ": damaged trials journal: trial " + std::to_string(trial) +
                             " is there twice; nothing was changed");
    }
  }
  return Ok();
}

// The history lines to keep (those of finished trials), newline-terminated.
Result<std::string> KeptHistory(const fs::path& file, const Lines& lines,
                                const std::map<int, FinishedTrial>& done, int& dropped) {
  std::string kept;
  for (size_t i = 0; i < lines.lines.size(); ++i) {
    int trial = 0;
    try {
      trial = TrialOfJournalLine(Json::parse(lines.lines[i]));
    } catch (const Json::exception& e) {
      return Error::BadInput(file.string() + ":" + std::to_string(i + 1) +
                             ": damaged history journal (not a torn last line): " +
                             JsonErrorText(e) + "; nothing was changed");
    }
    if (!done.count(trial)) {
      ++dropped;
      continue;
    }
    kept.append(lines.lines[i]).push_back('\n');
  }
  return kept;
}

int RemoveStaleCounterexamples(const fs::path& dir, const std::map<int, FinishedTrial>& done) {
  int removed = 0;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return 0;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    int trial = TrialOfCounterexample(entry.path().filename().string());
    if (trial >= 0 && !done.count(trial) && fs::remove(entry.path(), ec)) ++removed;
  }
  return removed;
}

Result<RecoveredJournals> Recover(const fs::path& dir, bool repair) {
  fs::path trials_file = TrialsJournal(dir), history_file = HistoryJournal(dir);
  auto trials_text = ReadIfThere(trials_file);
  if (!trials_text) return trials_text.error();
  auto history_text = ReadIfThere(history_file);
  if (!history_text) return history_text.error();
  RecoveredJournals r;
  Lines trials = Split(trials_text.value()), history = Split(history_text.value());
  if (Status s = ParseTrials(trials_file, trials, r.trials); !s) return s.error();
  auto kept = KeptHistory(history_file, history, r.trials, r.unfinished_history_lines);
  if (!kept) return kept.error();
  r.torn_lines_cut = (trials.torn ? 1 : 0) + (history.torn ? 1 : 0);
  if (!repair) return r;
  // Everything is read and checked: only now is anything changed.
  if (trials.torn) {
    std::string whole;
    for (std::string_view line : trials.lines) whole.append(line).push_back('\n');
    if (Status s = WriteFileAtomically(trials_file, whole); !s) return s.error();
  }
  if (history.torn || r.unfinished_history_lines > 0) {
    if (Status s = WriteFileAtomically(history_file, kept.value()); !s) return s.error();
  }
  r.stale_counterexamples = RemoveStaleCounterexamples(CounterexampleDir(dir), r.trials);
  return r;
}

}  // namespace

TrialExercise ExerciseOfLine(const Json& line) {
  auto it = line.find("exercise");
  if (it == line.end()) return TrialExercise{{}, 0, 0, false};
  return it->get<TrialExercise>();
}

std::string TrialLine(const Plan& plan, const std::vector<Verdict>& verdicts,
                      const TrialExercise& exercise) {
  Json line = {{"trial", plan.trial}, {"plan", plan}, {"verdicts", verdicts}};
  if (exercise.known) line["exercise"] = exercise;
  return line.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

JournalEntry FormatFinishedTrial(const Plan& plan, const std::vector<Event>& events,
                                 const std::vector<Verdict>& verdicts) {
  return {FormatTrialHistory(plan.trial, events),
          TrialLine(plan, verdicts, ExerciseOf(plan, events))};
}

Status AppendFinishedTrials(const fs::path& dir, const std::vector<JournalEntry>& trials) {
  if (trials.empty()) return Ok();
  std::string history, lines;
  for (const JournalEntry& t : trials) {
    history += t.history;
    lines += t.trial_line;
  }
  if (Status s = AppendDurably(HistoryJournal(dir), history); !s) return s;
  return AppendDurably(TrialsJournal(dir), lines);
}

Status AppendFinishedTrial(const fs::path& dir, const Plan& plan, const std::vector<Event>& events,
                           const std::vector<Verdict>& verdicts) {
  return AppendFinishedTrials(dir, {FormatFinishedTrial(plan, events, verdicts)});
}

Result<RecoveredJournals> ReadJournals(const fs::path& dir) { return Recover(dir, false); }

Result<RecoveredJournals> RecoverJournals(const fs::path& dir) { return Recover(dir, true); }

}  // namespace killpoint
