#include "check/fix_hint.h"

#include <map>
#include <optional>
#include <set>

#include "history/event_registry.h"
#include "plan/crash_point.h"

namespace killpoint {
namespace {

constexpr const char* kSaveRecipes =
    " (docs/writing-a-job.md, \"Saving state so that a kill cannot break it\"; the Save recipes: "
    "docs/persistence-models.md, \"Common save recipes, model by model\")";
constexpr const char* kSideEffects =
    " (docs/writing-a-job.md, \"Side effects: the order decides the failure\"; docs/catalogue.md)";

bool Contains(const std::string& text, const char* part) {
  return text.find(part) != std::string::npos;
}

bool Committed(const Event& e) {
  auto p = As<event::Publish>(e);
  return p && p->committed;
}

// The date a publish delivered (its body's biz_date), else the event's.
std::string PublishedDate(const Event& e) {
  std::string d = Read<event::Publish>(e).biz_date;
  return d.empty() ? e.biz_date : d;
}

// A failed exit's code: not 0, and not the harness's kill or timeout; nullopt for any other.
std::optional<int64_t> FailedExit(const Event& e) {
  auto exit = As<event::Exit>(e);
  if (!exit || exit->killed_by_harness || exit->code == 0) return std::nullopt;
  return exit->code;
}

// One attempt of one run of a date.
struct AttemptId {
  std::string date;
  int trigger = 0, attempt = 0;
  bool operator==(const AttemptId&) const = default;
  auto operator<=>(const AttemptId&) const = default;
};
AttemptId IdOf(const Event& e) { return {e.biz_date, e.trigger, e.attempt}; }

// The scheduler's second firing of a date (a duplicate trigger) numbers its attempts from 1
// again: "attempt 1 of 2026-11-01 (its run 2)" tells it from the first run's attempt 1.
std::string AttemptName(const AttemptId& a) {
  return "attempt " + std::to_string(a.attempt) + " of " + a.date +
         (a.trigger > 1 ? " (its run " + std::to_string(a.trigger) + ")" : "");
}

// "the kill at after_publish" from a kill event.
std::string KillAt(const Event& kill) {
  const event::Kill k = Read<event::Kill>(kill);
  return "killed " + (k.when == Moment::kBefore ? std::string("at") : std::string(NameOf(k.when))) +
         " " + k.point;
}

// The crash point an attempt passed or was killed at; "" for another event.
std::string PointOf(const Event& e) {
  if (auto f = As<event::Failpoint>(e)) return f->point;
  if (auto k = As<event::Kill>(e)) return k->point;
  return "";
}

// The source of the last rename onto `file` before `until` (a syscall point
// "rename:SRC:FILE"); empty when the history has none.
std::string RenameSource(const std::vector<Event>& events, size_t until, const std::string& file) {
  std::string source;
  for (size_t i = 0; i < until; ++i) {
    std::string point = PointOf(events[i]);
    if (point.rfind("rename:", 0) != 0) continue;
    size_t colon = point.rfind(':');
    if (colon > 7 && point.substr(colon + 1) == file) source = point.substr(7, colon - 7);
  }
  return source;
}

// Which of the job's state files `file` is: "state" (check.state_file), "db" (check.db or its
// -journal), "wal" (its -wal), or "" for any other file.
std::string StateRole(const std::string& file, const CheckParams& check) {
  if (!check.state_file.empty() && file == check.state_file) return "state";
  if (check.db.empty()) return "";
  if (file == check.db || file == check.db + "-journal") return "db";
  return file == check.db + "-wal" ? "wal" : "";
}

// A rollback of the job's SQLite database that undid a commit, and the setting that syncs
// what it lost (docs/sqlite-guarantees.md): a rollback journal back from the dead is an unlink
// whose folder was never fsync'ed (DELETE mode at FULL or below: EXTRA syncs the folder); a
// WAL cut back was not synced at its commit (NORMAL or OFF); the database's own writes lost
// were never synced at all (OFF).
std::string LostCommit(const std::string& file, const std::string& text, const std::string& model,
                       const CheckParams& check) {
  std::string cause =
      "the crash (" + model + " model) undid a commit of " + check.db + " (" + text + "): ";
  constexpr const char* kSqlite = " (docs/sqlite-guarantees.md)";
  if (file == check.db + "-journal" && Contains(text, "back with")) {
    return cause +
           "SQLite deleted its rollback journal to commit but never fsync'ed the folder, so the "
           "journal came back and the next open rolled the commit back. Set PRAGMA "
           "synchronous=EXTRA, which fsyncs the folder after the unlink, or use "
           "journal_mode=WAL with synchronous=FULL" +
           kSqlite;
  }
  if (file == check.db + "-wal") {
    return cause +
           "the WAL was not synced when the transaction committed (synchronous=NORMAL or OFF "
           "in WAL mode). Set PRAGMA synchronous=FULL" +
           kSqlite;
  }
  return cause +
         "SQLite synced less than it committed (at synchronous=OFF it syncs nothing). Set "
         "PRAGMA synchronous=FULL, or EXTRA in DELETE mode" +
         kSqlite;
}

bool CountsDeliveries(const std::string& invariant) {
  return invariant == "no_double_publish" || invariant == "one_delivery_per_key";
}

bool CountsLoss(const std::string& invariant) {
  return invariant == "no_loss" || invariant == "no_silent_loss";
}

// The dates whose rollbacks can explain a violation of `invariant`: for a count of deliveries,
// the dates delivered more than once; for any other invariant but a loss (the state
// unreadable, a commit lost, a scenario's own check), every date. A rollback on another date
// is no cause: its retry delivered that date once, as it should. A loss has none: a lost save
// makes a retry do more (deliver again), never less; the order of marking and delivering
// explains a loss (MarkedFirst). Issue 33: a correct O_SYNC job's harmless rollback of one
// attempt was blamed for a loss that a later attempt's kill made.
std::optional<std::set<std::string>> DatesInQuestion(const std::string& invariant,
                                                     const std::vector<Event>& events) {
  if (CountsLoss(invariant)) return std::set<std::string>{};
  if (!CountsDeliveries(invariant)) return std::nullopt;
  std::map<std::string, int> deliveries;
  for (const Event& e : events) {
    if (Committed(e)) ++deliveries[PublishedDate(e)];
  }
  std::set<std::string> dates;
  for (const auto& [date, n] : deliveries) {
    if (n > 1) dates.insert(date);
  }
  return dates;
}

// How the attempt of event `until` saved `file`, as its crash points before that event show:
// "rename" (a point "rename:SRC:FILE"), "in place" (file operations seen, none a rename onto
// it: a write, a mapping's stores), or "" when the history holds no file operation to tell.
std::string SaveKind(const std::vector<Event>& events, size_t until, const std::string& file) {
  bool seen = false;
  for (size_t i = 0; i < until; ++i) {
    if (!(IdOf(events[i]) == IdOf(events[until]))) continue;
    std::string point = PointOf(events[i]);
    if (!IsSyscallPoint(point)) continue;
    seen = true;
    if (point.rfind("rename:", 0) == 0 && point.size() > file.size() &&
        point.compare(point.size() - file.size() - 1, std::string::npos, ":" + file) == 0)
      return "rename";
  }
  return seen ? "in place" : "";
}

// A rollback that undid the job's state: a name (a rename or creation) or unsynced data of its
// state file, or a commit of its database; on a date that can explain the violation.
std::string LostSave(const std::string& invariant, const std::vector<Event>& events,
                     const CheckParams& check) {
  std::optional<std::set<std::string>> dates = DatesInQuestion(invariant, events);
  for (size_t i = 0; i < events.size(); ++i) {
    auto rollback = As<event::Rollback>(events[i]);
    if (!rollback) continue;
    if (dates && !dates->count(events[i].biz_date)) continue;
    std::string model(rollback->model ? NameOf(*rollback->model) : "");
    for (const std::string& text : rollback->changes) {
      std::string file = text.substr(0, text.find(": "));
      std::string role = StateRole(file, check);
      if (role.empty()) continue;  // not what the retry reads: no cause the history shows
      if (role == "wal" || role == "db") return LostCommit(file, text, model, check);
      if (Contains(text, "no fsync of its directory") || Contains(text, "no fsync since it was")) {
        std::string source = RenameSource(events, i, file);
        return (source.empty() ? file + " was created or renamed into place"
                               : "the rename of " + source + " to " + file + " reached the disk") +
               ", but its folder was never fsync'ed: the crash (" + model + " model) lost " + file +
               ", and the retry ran without it. Fsync the folder after the rename" + kSaveRecipes;
      }
      if (Contains(text, "writes lost") || Contains(text, "not written back") ||
          Contains(text, "zero-length")) {
        std::string what = text.substr(file.size() + 2);
        std::string kind = SaveKind(events, i, file);
        std::string cause = "the crash (" + model + " model) undid writes to " + file;
        if (kind == "in place") {
          return cause + " that the job made in place and never made durable (" + what +
                 "): make them durable before acting on them (fsync, msync(MS_SYNC) for a "
                 "mapping, or O_SYNC), or write a temporary file, fsync it, rename it over " +
                 file + " and fsync the folder" + kSaveRecipes;
        }
        return cause + " that were never made durable (" + what + "): " +
               (kind == "rename" ? "fsync the new file before renaming it into place, then fsync "
                                   "the folder"
                                 : "make them durable (fsync) before the job acts on them; saved "
                                   "by rename, fsync the new file before the rename, then the "
                                   "folder") +
               kSaveRecipes;
      }
    }
  }
  return "";
}

// A kill in the middle of writing, with no rollback: the job wrote its state in place.
std::string TornInPlace(const std::string& invariant, const std::vector<Event>& events,
                        const CheckParams& check) {
  const Event* kill = nullptr;
  bool failed_after = false;
  for (const Event& e : events) {
    if (Is<event::Rollback>(e)) return "";
    if (kill && e.biz_date == kill->biz_date && FailedExit(e)) failed_after = true;
    auto k = As<event::Kill>(e);
    if (!k || kill) continue;
    // In the middle of a write, before it, or right after an open that truncated the file
    // (open(..., "w")): each leaves a state cut short.
    bool truncated = k->point.rfind("open:", 0) == 0 && k->when == Moment::kAfter;
    // At a file operation, only one on the job's state: another file's cut breaks nothing
    // the next attempt reads.
    bool on_state =
        !IsSyscallPoint(k->point) || !StateRole(std::string(SyscallPath(k->point)), check).empty();
    if (on_state && (k->when == Moment::kMid || Contains(k->point, "mid_write") ||
                     k->point.rfind("write:", 0) == 0 || truncated))
      kill = &e;
  }
  if (!kill || (invariant != "state_readable" && !failed_after)) return "";
  return "the job was " + KillAt(*kill) +
         " while writing its state in place, and what it left could not be read by the next "
         "attempt: write the new state to a temporary file in the same folder, fsync it, rename "
         "it over the old one, fsync the folder" +
         kSaveRecipes;
}

// Whether a rollback undid a file that may hold the job's record of its deliveries: its state
// (check.state_file, check.db), or, when the scenario names no state file, any file but a
// temporary one and SQLite's -shm. An export beside a named state holds no record.
bool MayHoldTheRecord(const Event& rollback, const CheckParams& check) {
  for (const std::string& text : Read<event::Rollback>(rollback).changes) {
    std::string file = text.substr(0, text.find(": "));
    if (!StateRole(file, check).empty()) return true;
    bool temporary = Contains(file, "<tmp") || (file.size() > 4 && file.ends_with("-shm"));
    if (check.state_file.empty() && !temporary) return true;
  }
  return false;
}

// A date delivered, its attempt killed after, and delivered again by a later attempt that did
// not ask the downstream first; not when a crash of that attempt undid what may hold its record.
std::string Republished(const std::vector<Event>& events, const CheckParams& check) {
  for (size_t i = 0; i < events.size(); ++i) {
    if (!Committed(events[i])) continue;
    AttemptId first = IdOf(events[i]);
    std::string date = PublishedDate(events[i]);
    const Event* kill = nullptr;
    bool queried = false;
    for (size_t j = i + 1; j < events.size(); ++j) {
      const Event& e = events[j];
      if (e.type == event::Kill::kType && IdOf(e) == first) kill = &e;
      // A crash that undid files of that attempt may have undone its record too: the history
      // no longer shows that it never recorded the delivery (an at-most-once job whose mark
      // a power cut lost, issue 33's LMDB rows).
      if (e.type == event::Rollback::kType && IdOf(e) == first && MayHoldTheRecord(e, check))
        return "";
      if (!kill || IdOf(e) == first) continue;
      if (e.type == event::Query::kType && e.biz_date == first.date) queried = true;
      if (Committed(e) && PublishedDate(e) == date && !queried) {
        return AttemptName(first) + " delivered it and was " + KillAt(*kill) +
               " before it recorded the delivery; " + AttemptName(IdOf(e)) +
               " delivered it again without asking the downstream first. Record an intent "
               "before delivering and, finding it on a retry, ask the downstream (GET "
               "/deliveries?key=K); or send one Idempotency-Key per date to a downstream that "
               "deduplicates" +
               kSideEffects;
      }
    }
  }
  return "";
}

// An attempt that ended before its end: "was killed at X", "exited with code 1"; empty for
// another event.
std::string Failure(const Event& e) {
  if (e.type == event::Kill::kType) return "was " + KillAt(e);
  std::optional<int64_t> code = FailedExit(e);
  return code ? "exited with code " + std::to_string(*code) : "";
}

// A date never delivered: an attempt ended before delivering it, a later one exited 0 without.
std::string MarkedFirst(const std::vector<Event>& events) {
  std::set<std::string> delivered, alerted;
  for (const Event& e : events) {
    if (Committed(e)) delivered.insert(PublishedDate(e));
    if (e.type == event::Alert::kType) alerted.insert(e.biz_date);
  }
  // The last failure of each date: the attempt whose end the successful one took over (an
  // earlier failure was redone by the attempts between).
  std::map<std::string, std::pair<AttemptId, std::string>> failed;
  for (const Event& e : events) {
    if (e.biz_date.empty() || delivered.count(e.biz_date)) continue;
    if (std::string f = Failure(e); !f.empty()) {
      failed[e.biz_date] = {IdOf(e), f};
      continue;
    }
    auto it = failed.find(e.biz_date);
    if (it == failed.end() || IdOf(e) == it->second.first ||
        !(Is<event::Exit>(e) && Read<event::Exit>(e).code == 0))
      continue;
    const auto& [attempt, how] = it->second;
    if (alerted.count(e.biz_date)) {
      return AttemptName(attempt) + " " + how + " after recording its intent; " +
             AttemptName(IdOf(e)) +
             " found the intent and alerted instead of asking the downstream whether the "
             "delivery happened: ask it (GET /deliveries?key=K) and deliver when it did not" +
             kSideEffects;
    }
    return AttemptName(attempt) + " " + how + " before delivering it, and " + AttemptName(IdOf(e)) +
           " exited 0 without delivering it: the job recorded the date as done before "
           "delivering it. Record an intent first, deliver, then mark done; finding an intent "
           "on a retry, ask the downstream (GET /deliveries?key=K)" +
           kSideEffects;
  }
  return "";
}

}  // namespace

std::string FixHint(const std::string& invariant, const std::vector<Event>& events,
                    const CheckParams& check) {
  if (std::string h = LostSave(invariant, events, check); !h.empty()) return h;
  if (std::string h = TornInPlace(invariant, events, check); !h.empty()) return h;
  if (CountsDeliveries(invariant)) return Republished(events, check);
  if (CountsLoss(invariant)) return MarkedFirst(events);
  return "";
}

}  // namespace killpoint
