// kp-bare-loop: the physical limit a killpoint run is measured against (issue 8). Given the
// output folder of a finished `killpoint run`, it spawns the same job attempts the run spawned,
// with the same arguments, in a fresh sandbox per trial (RAM, as the run's default), and
// nothing else: no control channel, no shim, no kills, no output capture (the job's output
// goes straight to files), no checks, no journal. It waits out the pauses and holds the run's
// scenarios asked for (Hold) and the waits for a lock the run's jobs reported (WaitOut), and
// fails the downstream's requests as the run's did. It prints how many attempts it spawned and
// how long they took, in all and per scenario. scripts/bench-trials.sh divides killpoint's time
// by this one.
//
//   kp-bare-loop OUT_DIR [--bindir DIR] [--real-disk]
//
// The downstream (a job's environment, not the harness's overhead) runs here too, one per
// scenario, with the fault each attempt had. An attempt the run killed at a failpoint runs
// here to its end (failpoints are no-ops without KILLPOINT_CTL), so on suites with kills the
// loop does more of the jobs' work than the run did, which flatters the ratio a little; a suite
// with no kills (bench/scenarios/memory-flat.json) gives the exact overhead.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/paths.h"
#include "downstream/downstream.h"
#include "history/event_registry.h"
#include "history/history.h"
#include "history/history_log.h"
#include "results/layout.h"
#include "run/placeholders.h"
#include "run/sandbox.h"
#include "scenario/scenario_parser.h"
#include "suite/suite.h"
#include "util/atomic_file.h"

extern char** environ;

namespace killpoint {
namespace {

namespace fs = std::filesystem;

struct Loop {
  fs::path bindir;
  Downstream* downstream;
  std::string url;  // the downstream's
  int attempts = 0;
  int64_t held_ms = 0;    // the pauses and overlap holds the loop waited out (Hold)
  int64_t waited_ms = 0;  // the waits for a lock it waited out in the jobs' place (WaitOut)
};

// posix_spawn of argv in `cwd` with `extra` added to the environment; output to two files.
// Returns the exit status as waitpid gives it, or -1 when the job could not start.
int RunOnce(const std::vector<std::string>& argv, const std::map<std::string, std::string>& extra,
            const fs::path& cwd, const fs::path& out, const fs::path& err) {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const char* eq = std::strchr(*e, '=');
    if (eq != nullptr) env[std::string(*e, static_cast<size_t>(eq - *e))] = eq + 1;
  }
  for (const auto& [k, v] : extra) env[k] = v;
  std::vector<std::string> env_lines;
  for (const auto& [k, v] : env) env_lines.push_back(k + "=" + v);
  std::vector<char*> envp, args;
  for (auto& l : env_lines) envp.push_back(l.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (auto& a : argv_copy) args.push_back(a.data());
  args.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

// A pause or an overlap holds the job for as long as the scenario asks, whoever runs it: the
// loop waits as long, so that a scenario's own waiting is not counted as the harness's cost. A
// pause: its duration. An overlap whose hold ran out before the second instance exited: the
// hold. One whose second instance exited first held the first instance while the second ran,
// which the loop runs too, one after the other: so without the second's waiting for what the
// held first one holds (a lock), which WaitOut makes up for.
void Hold(Loop& loop, const Event& e, const std::vector<Event>& events) {
  int64_t ms = 0;
  if (e.type == event::Pause::kType) ms = e.data.value("duration_ms", 0);
  if (e.type == event::OverlapEnd::kType && !e.data.value("second_exited", true)) {
    for (const Event& o : events) {
      if (o.type == event::Overlap::kType && o.attempt == e.attempt && o.biz_date == e.biz_date &&
          o.trigger == e.trigger) {
        ms = o.data.value("hold_ms", 0);
      }
    }
  }
  if (ms <= 0) return;
  loop.held_ms += ms;
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

int64_t WaitedMs(const std::vector<Event>& events) {
  int64_t ms = 0;
  for (const Event& e : events) {
    if (e.type == event::JobWait::kType) ms += e.data.value("ms", int64_t{0});
  }
  return ms;
}

// A job that waits for a lock another run holds reports the wait (job_wait, docs/faults.md).
// In the run, a holder it killed leaves its lease behind until the TTL runs out, and the second
// instance of an overlap waits for the held first one; here nothing is killed and the two run
// one after the other, so the same attempts wait less or not at all. That real time is the
// scenario's, whoever runs it: after each trial the loop waits out what the run's jobs waited
// more than its own did.
void WaitOut(Loop& loop, const std::vector<Event>& run, const History& here) {
  int64_t ms = WaitedMs(run) - WaitedMs(here.Events());
  if (ms <= 0) return;
  loop.waited_ms += ms;
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

Status RunScenario(Loop& loop, const Scenario& s, const fs::path& out_dir, const fs::path& root) {
  fs::path log = HistoryJournal(ScenarioDir(out_dir, s.name));
  auto trials = ReadHistoryLog(log);
  if (!trials) return trials.error();
  std::string dates;
  for (const auto& d : s.dates) dates += (dates.empty() ? "" : ",") + d;
  for (const auto& [trial, events] : trials.value()) {
    // Each trial finds the downstream as the run's trial did: empty. Left as the trial before
    // left it, a job that asks first whether its date was delivered skips its publish, its
    // retries and their backoff (the loop did about a tenth of retry/job-breaker's work so).
    History sink;  // the downstream's requests land here; only the jobs' waits are looked at
    loop.downstream->Attach(s.downstream.dedupe, &sink,
                            s.downstream.dedupe_by == kDedupeByIdempotencyKey);
    auto box = Sandbox::Create(root, "bare-" + std::to_string(trial) + "-");
    if (!box) return box.error();
    const Sandbox& b = box.value();
    auto run = [&](const std::vector<std::string>& command, const std::string& date, int attempt,
                   const std::string& name) {
      std::map<std::string, std::string> vars = {
          {"bindir", loop.bindir.string()},
          {"scenario_dir", fs::absolute(s.file).parent_path().string()},
          {"workdir", b.work().string()},
          {"biz_date", date},
          {"dates", dates},
          {"downstream", loop.url},
          {"attempt", std::to_string(attempt)},
          {"trial", std::to_string(trial)}};
      std::vector<std::string> argv;
      for (const auto& a : command) argv.push_back(Substitute(a, vars));
      std::map<std::string, std::string> env;
      for (const auto& [k, v] : s.job.env) env[k] = Substitute(v, vars);
      env["KILLPOINT_WORKDIR"] = b.work().string();
      env["KILLPOINT_BIZ_DATE"] = date;
      env["KILLPOINT_ATTEMPT"] = std::to_string(attempt);
      env["KILLPOINT_DOWNSTREAM"] = loop.url;
      RunOnce(argv, env, b.work(), b.logs() / (name + ".out"), b.logs() / (name + ".err"));
    };
    if (!s.job.setup.empty()) run(s.job.setup, "", 0, "setup");
    for (const Event& e : events) {
      if (e.type == event::FinalPass::kType) loop.downstream->ArmBurst(0);  // as the run does
      if (e.type == event::Pause::kType || e.type == event::OverlapEnd::kType)
        Hold(loop, e, events);
      if (e.type != event::Spawn::kType) continue;
      // The downstream misbehaves as it did in the run: a commit_no_answer costs the job its
      // client timeout there and here alike, and a burst of errors its own retries and backoff.
      const nlohmann::json fault = e.data.value("fault", nlohmann::json::object());
      loop.downstream->ArmFault(fault.is_object() ? fault.value("downstream_fault", "") : "");
      if (fault.is_object() && fault.value("downstream_burst", 0) > 0) {
        loop.downstream->ArmBurst(fault.value("downstream_burst", 0));
      }
      run(s.job.command, e.biz_date, e.attempt, std::to_string(++loop.attempts));
      loop.downstream->ReleaseHeld();
    }
    loop.downstream->Detach();  // before `sink` goes
    WaitOut(loop, events, sink);
  }
  return Ok();
}

int Main(int argc, char** argv) {
  CLI::App app{"Spawns the job attempts of a finished killpoint run, and nothing else"};
  std::string out_dir, bindir;
  bool real_disk = false;
  app.add_option("out", out_dir, "The output folder of a finished `killpoint run`")->required();
  app.add_option("--bindir", bindir,
                 "Folder of the reference jobs, {bindir} (default: this binary's)");
  app.add_flag("--real-disk", real_disk, "Sandboxes in $TMPDIR instead of RAM");
  CLI11_PARSE(app, argc, argv);

  auto text = ReadFile(fs::path(out_dir) / "results.json");
  if (!text) return std::cerr << "kp-bare-loop: " << text.error().message << "\n", 2;
  nlohmann::json results = nlohmann::json::parse(text.value(), nullptr, false);
  auto list = results.find("scenarios");
  if (results.is_discarded() || list == results.end() || !list->is_array()) {
    std::cerr << "kp-bare-loop: " << out_dir << "/results.json: not a killpoint results file\n";
    return 2;
  }
  auto root = SandboxRoot::Make("", false, StorageFor(real_disk));
  if (!root) return std::cerr << "kp-bare-loop: " << root.error().message << "\n", 3;
  Loop loop{bindir.empty() ? DefaultBindir() : fs::path(bindir), nullptr, "", 0, 0, 0};

  auto started = std::chrono::steady_clock::now();
  nlohmann::json per_scenario = nlohmann::json::object();
  for (size_t i = 0; i < list->size(); ++i) {
    auto scenario_started = std::chrono::steady_clock::now();
    auto scenario = LoadScenario((*list)[i].value("file", ""));
    if (!scenario) return std::cerr << "kp-bare-loop: " << scenario.error().message << "\n", 2;
    History unused;  // each trial attaches its own (RunScenario)
    auto downstream = Downstream::Start(scenario.value().downstream.dedupe, &unused);
    if (!downstream) return std::cerr << "kp-bare-loop: " << downstream.error().message << "\n", 3;
    loop.downstream = downstream.value().get();
    loop.url = downstream.value()->BaseUrl();
    if (Status st = RunScenario(loop, scenario.value(), out_dir, root.value()->path()); !st) {
      std::cerr << "kp-bare-loop: " << st.error().message << "\n";
      return 2;
    }
    per_scenario[scenario.value().name] =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - scenario_started).count();
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::cout << nlohmann::json{{"attempts", loop.attempts},
                              {"seconds", seconds},
                              {"held_ms", loop.held_ms},
                              {"waited_ms", loop.waited_ms},
                              {"scenarios", per_scenario}}
                   .dump()
            << "\n";
  return 0;
}

}  // namespace
}  // namespace killpoint

int main(int argc, char** argv) { return killpoint::Main(argc, argv); }
