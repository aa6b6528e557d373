// The journals of one scenario of a run (suite.h), OUT/<slug>/:
//   history.jsonl   every event of every finished trial, each line tagged with its trial
//   trials.jsonl    one line per finished trial: {"trial", "plan", "verdicts", "exercise"}
//                   ("exercise": which planned faults happened, history/exercise.h; absent in
//                   journals of before issue 17, then read as unknown)
// Both are append-only. A trial counts as finished once its trials.jsonl line is on disk:
// its history is appended (one write, fdatasync) before that line (one write, fdatasync), and
// its counterexample files are written (atomically) before either. So after a crash of the
// harness at any point, trials.jsonl names exactly the finished trials, and everything they
// need is there. Trials may be in any order in the files (a resumed or parallel run), so the
// readers key everything by trial index.
#pragma once

#include <filesystem>
#include <map>
#include <vector>

#include "check/verdict.h"
#include "history/event.h"
#include "history/exercise.h"
#include "plan/plan.h"
#include "util/result.h"

namespace killpoint {

struct FinishedTrial {
  Plan plan;
  std::vector<Verdict> verdicts;
  TrialExercise exercise = {{}, 0, 0, false};  // unknown unless its journal line says
};

// The "exercise" of a trials line, unknown when the line has none.
TrialExercise ExerciseOfLine(const nlohmann::json& line);

// A finished trial's journal lines, formatted (newlines included), ready to append.
struct JournalEntry {
  std::string history;     // its history.jsonl lines
  std::string trial_line;  // its trials.jsonl line
};
JournalEntry FormatFinishedTrial(const Plan& plan, const std::vector<Event>& events,
                                 const std::vector<Verdict>& verdicts);

// Appends finished trials to `dir`'s journals as one group commit: every history line in one
// write and one fdatasync, then every trials line likewise. The trials are finished when this
// returns Ok; after a crash in between, the ones whose trials line is not whole are not.
Status AppendFinishedTrials(const std::filesystem::path& dir,
                            const std::vector<JournalEntry>& trials);

// The same for one trial.
Status AppendFinishedTrial(const std::filesystem::path& dir, const Plan& plan,
                           const std::vector<Event>& events, const std::vector<Verdict>& verdicts);

// The trials line of a finished trial, as AppendFinishedTrial writes it (newline included).
// An unknown `exercise` (the default) is left out of the line.
std::string TrialLine(const Plan& plan, const std::vector<Verdict>& verdicts,
                      const TrialExercise& exercise = TrialExercise{{}, 0, 0, false});

// What RecoverJournals found and repaired.
struct RecoveredJournals {
  std::map<int, FinishedTrial> trials;  // by trial index
  int torn_lines_cut = 0;               // incomplete last lines (a kill mid-append)
  int unfinished_history_lines = 0;     // history of trials with no trials line (a kill between)
  int stale_counterexamples = 0;        // counterexample files of unfinished trials
};

// Reads `dir`'s journals to resume a run: every finished trial. First it checks both files
// whole: a line that is not a journal line anywhere but at the very end, or a trial twice in
// trials.jsonl, is BadInput naming file:line, and nothing is changed. Then it repairs, each
// file rewritten atomically only if it must change: a torn last line is cut, history lines of
// trials that have no trials line are dropped, counterexample files of such trials removed.
// Missing journals are an empty scenario (the run stopped before it).
Result<RecoveredJournals> RecoverJournals(const std::filesystem::path& dir);

// The same reading and checking, without repairing anything (the counts say what a repair
// would do): for checkers, which never write.
Result<RecoveredJournals> ReadJournals(const std::filesystem::path& dir);

}  // namespace killpoint
