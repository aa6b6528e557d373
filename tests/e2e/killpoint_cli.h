// Runs the killpoint binary as a real process, as a user or a CI system would.
#pragma once

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "proc/process.h"

namespace killpoint::testing {

namespace fs = std::filesystem;

struct CliRun {
  int exit_code = -1;
  std::string out, err;
  fs::path dir;  // --out of the run
  // results.json, read once. A reference, so that `for (x : run.Results()["scenarios"])`
  // iterates a living object, not a destroyed temporary.
  const nlohmann::json& Results() const {
    if (results.is_null()) {
      std::ifstream in(dir / "results.json");
      results = nlohmann::json::parse(in);
    }
    return results;
  }
  mutable nlohmann::json results;
};

// Generous: a loaded 2-core machine starts a server or stops a run slowly.
inline constexpr auto kPatience = std::chrono::minutes(3);

// Polls `done` every 20 ms until it holds or kPatience passes.
template <class F>
bool Eventually(F done) {
  auto deadline = std::chrono::steady_clock::now() + kPatience;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return done();
}

// Empty when the file cannot be read, also when it is a /proc file of a process that ended
// between the open and the read (the read fails with ESRCH, which libstdc++ throws).
inline std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  try {
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  } catch (const std::ios_base::failure&) {
    return "";
  }
}

// An empty folder: `base`/`name`, or by default one of this process's own under the temp
// folder.
inline fs::path FreshDir(const std::string& name, const fs::path& base = {}) {
  fs::path d = base.empty() ? fs::temp_directory_path() /
                                  ("kp-e2e-" + std::to_string(::getpid()) + "-" + name)
                            : base / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// `killpoint run ARGS... --out <fresh dir>`; waits for it to exit (no sleeping). The fresh
// folder is FreshDir(name, base).
inline CliRun RunKillpoint(const std::string& name, std::vector<std::string> args,
                           const fs::path& base = {}) {
  CliRun r;
  r.dir = FreshDir(name, base);
  std::vector<std::string> argv = {KILLPOINT_BIN_DIR "/killpoint"};
  argv.insert(argv.end(), args.begin(), args.end());
  if (args.front() == "run" || args.front() == "explore")
    argv.insert(argv.end(), {"--out", (r.dir / "out").string()});
  fs::path logs = r.dir / "cli";
  auto p = Spawn({argv, {}, KILLPOINT_SOURCE_DIR, logs.string() + ".out", logs.string() + ".err"});
  if (!p) {
    r.err = p.error().message;
    return r;
  }
  ExitStatus s = p.value()->Wait(std::chrono::minutes(20));
  r.exit_code = s.ShellCode();
  r.out = Slurp(logs.string() + ".out");
  r.err = Slurp(logs.string() + ".err");
  r.dir = r.dir / "out";
  return r;
}

// The bundled suite (`killpoint run scenarios`, the default trials and seed), run once per test
// process for every test that reads its verdicts (e2e_test: killpoint_e2e_test.cc and
// catalogue_e2e_test.cc). Its output stays in the build folder, BUILD/e2e/bundled/out:
// .ci/run's browser check opens that report.html instead of running the suite again.
inline const CliRun& BundledRun() {
  static const CliRun run = RunKillpoint("bundled", {"run", "scenarios"},
                                         fs::path(KILLPOINT_BIN_DIR).parent_path() / "e2e");
  return run;
}

// A journal's lines (trials.jsonl, history.jsonl) by trial, in file order within a trial.
// Parallel trials append as they finish, so the order across trials may differ between equal
// runs; a trial's own lines may not.
inline std::map<int, std::vector<std::string>> JournalByTrial(const fs::path& journal) {
  std::map<int, std::vector<std::string>> out;
  std::ifstream in(journal);
  for (std::string line; std::getline(in, line);)
    out[nlohmann::json::parse(line)["trial"].get<int>()].push_back(line);
  return out;
}

// How many history lines each trial has: what equal runs share of history.jsonl, whose events
// carry times, pids and sandbox paths of their own.
inline std::map<int, size_t> HistoryLinesByTrial(const fs::path& history) {
  std::map<int, size_t> out;
  for (const auto& [trial, lines] : JournalByTrial(history)) out[trial] = lines.size();
  return out;
}

// The results entry of one invariant of one scenario.
// A results.json without what differs between equal runs (times, and the folder the
// counterexample files were written to): for comparing a run with its shards or its resume.
inline nlohmann::json ComparableResults(nlohmann::json j) {
  j.erase("started_at");
  j.erase("elapsed_s");
  for (auto& s : j["scenarios"]) {
    s.erase("elapsed_s");
    for (auto& inv : s["invariants"]) {
      for (auto& e : inv["examples"])
        e["file"] = fs::path(e["file"].get<std::string>()).filename().string();
    }
  }
  return j;
}

inline nlohmann::json Invariant(const nlohmann::json& results, const std::string& scenario,
                                const std::string& invariant) {
  for (const auto& s : results["scenarios"]) {
    if (s["name"] != scenario) continue;
    for (const auto& i : s["invariants"]) {
      if (i["name"] == invariant) return i;
    }
  }
  return nullptr;
}

}  // namespace killpoint::testing
