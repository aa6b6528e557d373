// journal_complete: killpoint's own results writer, crashed by killpoint (docs/hardening.md,
// "Dogfood"), lost no finished trial. The job is kp-selftest-writer (jobs/selftest): it writes
// WORKDIR/out/selftest/{history,trials}.jsonl and WORKDIR/out/results.json with the suite's own
// code, and passes the named failpoint trial_finished once a trial counts as finished. Each
// trial's plan carries the pid of the writer that made it as its seed.
//
// Held when, in the final state: the journals read as `killpoint run --resume` reads them (a
// torn last line is allowed: it is an unfinished trial), every writer process has at least as
// many trials in trials.jsonl as it announced (a finished trial lost and written again by the
// next attempt has the next attempt's pid), and results.json, when there, parses and counts no
// more trials than the journal holds.
#include <map>

#include "history/event_registry.h"
#include "results/checkers.h"
#include "results/journal.h"
#include "results/layout.h"
#include "results/results.h"
#include "util/atomic_file.h"

namespace killpoint {
namespace {

constexpr const char* kJournalComplete = "journal_complete";

Verdict ResultsFileAgrees(const std::filesystem::path& file, size_t journaled) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return Verdict::Held(kJournalComplete, "");
  auto text = ReadFile(file);
  if (!text)
    return Verdict::Violated(kJournalComplete,
                             "out/results.json cannot be read: " + text.error().message);
  RunResults r;
  try {
    nlohmann::json::parse(text.value()).get_to(r);
  } catch (const nlohmann::json::exception& e) {
    return Verdict::Violated(kJournalComplete,
                             std::string("out/results.json is damaged: ") + e.what());
  }
  if (static_cast<size_t>(r.Trials()) > journaled) {
    return Verdict::Violated(kJournalComplete,
                             "out/results.json counts " + std::to_string(r.Trials()) +
                                 " trials, the journal holds " + std::to_string(journaled));
  }
  return Verdict::Held(kJournalComplete, "");
}

Verdict JournalComplete(const CheckInput& in) {
  std::map<int64_t, int> announced;  // by writer pid
  for (const auto& e : in.events) {
    if (e.type == event::Failpoint::kType && Read<event::Failpoint>(e).point == "trial_finished") {
      ++announced[Read<event::Failpoint>(e).pid];
    }
  }
  auto journals = ReadJournals(in.workdir / "out" / "selftest");
  if (!journals)
    return Verdict::Violated(kJournalComplete,
                             "the journal cannot be resumed: " + journals.error().message);
  std::map<int64_t, int> kept;
  for (const auto& [trial, t] : journals.value().trials) ++kept[static_cast<int64_t>(t.plan.seed)];
  int total = 0;
  for (const auto& [pid, n] : announced) {
    total += n;
    if (kept[pid] < n) {
      return Verdict::Violated(kJournalComplete,
                               "writer " + std::to_string(pid) + " announced " + std::to_string(n) +
                                   " finished trials, " + std::to_string(kept[pid]) +
                                   " of them are in trials.jsonl after the crash");
    }
  }
  Verdict results =
      ResultsFileAgrees(ResultsFile(in.workdir / "out"), journals.value().trials.size());
  if (!results.held) return results;
  return Verdict::Held(kJournalComplete,
                       std::to_string(total) + " announced finished trials all in the journal (" +
                           std::to_string(journals.value().torn_lines_cut) + " torn tail)");
}

}  // namespace

const Checkers& AllCheckers() {
  static const Checkers checkers = [] {
    Checkers all = BuiltinCheckers();
    all[kJournalComplete] = JournalComplete;
    return all;
  }();
  return checkers;
}

}  // namespace killpoint
