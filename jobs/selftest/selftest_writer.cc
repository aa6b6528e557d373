// kp-selftest-writer: killpoint's own results writer as a job, to crash it with killpoint
// (docs/hardening.md, "Dogfood"). It writes what a run writes, with the very code a run uses:
//
//   kp-selftest-writer --init                  creates $KILLPOINT_WORKDIR/out/selftest/ and
//                                              fsyncs it and its parents (the scenario's setup)
//   kp-selftest-writer [--trials N] [--skip-fsync]
//
// A run first resumes the journals as `killpoint run --resume` does (RecoverJournals: a torn
// tail is cut), then finishes trials until there are N: per trial it appends the trial with
// AppendFinishedTrial (history, then the trials line, each one write and fdatasync), rewrites
// out/results.json with WriteResultsFile, and only then passes the named failpoint
// trial_finished: from there on the trial counts as finished and must survive any crash. At
// the end it rewrites results.json once more, as a run does, so that crash points follow the
// last announcement too.
// Each synthetic trial's plan carries the writer's pid as its seed, so that the checker
// journal_complete (harness/results/selftest_check.cc) can tell whose trials survived.
// --skip-fsync appends without fdatasync: the writer a careless change would make, which
// journal_complete must catch under the power model.
#include <fcntl.h>
#include <killpoint/failpoint.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "history/history_log.h"
#include "results/journal.h"
#include "results/layout.h"
#include "suite/suite.h"

namespace {

namespace fs = std::filesystem;
using killpoint::Status;

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;

fs::path OutDir() {
  const char* work = std::getenv("KILLPOINT_WORKDIR");
  return fs::path(work ? work : ".") / "out";
}

bool SyncPath(const fs::path& p) {
  int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok;
}

int Init() {
  fs::path dir = OutDir() / "selftest";
  fs::create_directories(dir);
  for (fs::path p = dir; p != OutDir().parent_path(); p = p.parent_path()) {
    if (!SyncPath(p)) return kExitFailed;
  }
  return SyncPath(OutDir().parent_path()) ? kExitOk : kExitFailed;
}

// The careless writer: the same lines, appended without fdatasync.
Status AppendUnsynced(const fs::path& file, const std::string& text) {
  int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return killpoint::Error::Harness("cannot open " + file.string());
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  if (!ok) return killpoint::Error::Harness("cannot write " + file.string());
  return killpoint::Ok();
}

Status Append(const fs::path& dir, const killpoint::Plan& plan,
              const std::vector<killpoint::Event>& events, bool skip_fsync) {
  if (!skip_fsync) return killpoint::AppendFinishedTrial(dir, plan, events, {});
  killpoint::JournalEntry entry = killpoint::FormatFinishedTrial(plan, events, {});
  if (Status s = AppendUnsynced(killpoint::HistoryJournal(dir), entry.history); !s) return s;
  return AppendUnsynced(killpoint::TrialsJournal(dir), entry.trial_line);
}

int Run(int trials, bool skip_fsync) {
  fs::path dir = OutDir() / "selftest";
  auto recovered = killpoint::RecoverJournals(dir);
  if (!recovered) {
    std::cerr << "kp-selftest-writer: " << recovered.error().message << "\n";
    return kExitFailed;
  }
  killpoint::RunResults results;
  results.killpoint_version = KILLPOINT_VERSION;
  results.started_at = "2026-11-29T00:00:00Z";
  killpoint::ScenarioResult scenario;
  scenario.name = "selftest";
  scenario.trials = static_cast<int>(recovered.value().trials.size());
  results.scenarios.push_back(scenario);
  for (int trial = 0; trial < trials; ++trial) {
    if (recovered.value().trials.count(trial)) continue;
    killpoint::Plan plan;
    plan.trial = trial;
    plan.seed = static_cast<uint64_t>(::getpid());
    killpoint::Event e;
    e.type = "trial_end";
    e.data = {{"writer_pid", ::getpid()}};
    if (Status s = Append(dir, plan, {e}, skip_fsync); !s) {
      std::cerr << "kp-selftest-writer: " << s.error().message << "\n";
      return kExitFailed;
    }
    ++results.scenarios[0].trials;
    if (Status s = killpoint::WriteResultsFile(OutDir(), results); !s) {
      std::cerr << "kp-selftest-writer: " << s.error().message << "\n";
      return kExitFailed;
    }
    killpoint::failpoint("trial_finished");
  }
  // The run's last write, as RunSuite's: crash points after the last announcement.
  if (Status s = killpoint::WriteResultsFile(OutDir(), results); !s) {
    std::cerr << "kp-selftest-writer: " << s.error().message << "\n";
    return kExitFailed;
  }
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kp-selftest-writer: killpoint's results writer as a job"};
  bool init = false, skip_fsync = false;
  int trials = 3;
  app.add_flag("--init", init, "Create the output folder durably (the scenario's setup)");
  app.add_option("--trials", trials, "Finished trials to reach")->check(CLI::Range(1, 1000));
  app.add_flag("--skip-fsync", skip_fsync,
               "Append without fdatasync (the writer journal_complete must catch)");
  CLI11_PARSE(app, argc, argv);
  return init ? Init() : Run(trials, skip_fsync);
}
