// Fix hints: the likely cause of a violation, read from the trial's history, and where the docs
// say how to fix it. One rule per common cause, tried in order; the first that matches names
// the cause. A pure function of the invariant and the events: tests pin each rule.
//
//   lost rename   a rollback undid the state the job reads on start (check.state_file), whose
//                 name was never made durable: the rename (or creation) reached the disk but
//                 its folder was never fsync'ed
//   lost writes   a rollback undid writes to that state never made durable: before its rename
//                 (the attempt's points show one onto it), or made in place (points seen, no
//                 such rename: a write, a mapping's stores)
//   lost commit   a rollback undid a commit of the job's SQLite database (check.db, its -wal or
//                 -journal): the synchronous setting that syncs what was lost (EXTRA for a
//                 journal back from the dead, FULL for a WAL cut back or writes never synced)
// A rollback counts only on a date the violation is about (a count of deliveries: the dates
// delivered twice), never for a loss (a lost save makes a retry do more, not less).
// A rollback of any other file (a temporary file lost before its rename, SQLite's -shm that it
// rebuilds on open, a lock table, an export the retry does not read) is no cause: the history
// does not show the retry reading it (issue 33 found each of these blamed).
//   torn in place the state file was unreadable after a kill in the middle of writing it in
//                 place (no rollback needed)
//   republished   an attempt delivered a date and was killed before recording it; a later
//                 attempt delivered it again without asking the downstream (not when a crash of
//                 that attempt undid what may hold its record)
//   marked first  the last attempt of a date to fail before delivering it, and the later one
//                 that exited 0 without delivering it: the date was marked done first
#pragma once

#include <string>
#include <vector>

#include "history/event.h"
#include "scenario/scenario.h"

namespace killpoint {

// The hint for a violation of `invariant` in a trial of these events; empty when no rule
// matches (the explanation and the timeline then have to do). `check` says which files are the
// job's state (check.state_file, check.db): the only losses a hint may blame.
std::string FixHint(const std::string& invariant, const std::vector<Event>& events,
                    const CheckParams& check);

}  // namespace killpoint
