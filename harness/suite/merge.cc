#include "suite/merge.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>

#include "counterexample/counterexample.h"
#include "history/exercise.h"
#include "results/layout.h"
#include "suite/suite.h"
#include "util/absolute_path.h"
#include "util/atomic_file.h"
#include "util/json_error.h"
#include "util/shell_quote.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

struct Shard {
  fs::path dir;
  RunResults results;
  ShardInfo info;  // {0, 1} for a results file without "shard": the whole run
};

// One line of a trials journal, kept verbatim so the merged journal equals an unsharded one.
struct MergedTrial {
  std::string raw;
  Plan plan;
  std::vector<Verdict> verdicts;
  TrialExercise exercise = {{}, 0, 0, false};
};

// The merged journals of one scenario, by trial.
struct Journals {
  std::map<int, MergedTrial> trials;
  std::map<int, std::string> history;  // the trial's history lines, newline-terminated
};

Result<Shard> ReadShard(const fs::path& dir) {
  fs::path file = ResultsFile(dir);
  std::error_code ec;
  if (!fs::exists(file, ec))
    return Error::BadInput(file.string() + " is missing: is " + dir.string() +
                           " the --out folder of a killpoint run?");
  auto text = ReadFile(file);
  if (!text) return Error::BadInput(text.error().message);
  Shard shard{dir, {}, {}};
  try {
    Json::parse(text.value()).get_to(shard.results);
  } catch (const Json::exception& e) {
    return Error::BadInput(file.string() + ": damaged results file: " + JsonErrorText(e));
  }
  if (!shard.results.partial.empty()) {
    return Error::BadInput(
        file.string() + ": partial results (" + shard.results.partial +
        "): finish that run first with the same `killpoint run` command and --resume");
  }
  shard.info = shard.results.shard.value_or(ShardInfo{});
  if (shard.info.count < 1 || shard.info.index < 0 || shard.info.index >= shard.info.count) {
    return Error::BadInput(file.string() + ": damaged results file: shard " +
                           std::to_string(shard.info.index) + "/" +
                           std::to_string(shard.info.count));
  }
  return shard;
}

std::string Names(const RunResults& r) {
  std::string out;
  for (const auto& s : r.scenarios) out += (out.empty() ? "" : ", ") + s.name;
  return out;
}

// What must be equal in every shard of one run, besides the seed.
Status SameRun(const Shard& a, const Shard& b) {
  std::string both = a.dir.string() + " and " + b.dir.string();
  if (a.results.seed != b.results.seed) {
    return Error::BadInput("shards of different seeds: " + both + " ran seeds " +
                           std::to_string(a.results.seed) + " and " +
                           std::to_string(b.results.seed));
  }
  if (a.results.killpoint_version != b.results.killpoint_version) {
    return Error::BadInput("shards of different killpoint versions: " + both);
  }
  if (a.info.count != b.info.count) {
    return Error::BadInput("shards of different shard counts: " + both + " are of " +
                           std::to_string(a.info.count) + " and " + std::to_string(b.info.count) +
                           " shards");
  }
  if (a.results.scenarios.size() != b.results.scenarios.size()) {
    return Error::BadInput("shards of different scenario sets: " + both + " ran [" +
                           Names(a.results) + "] and [" + Names(b.results) + "]");
  }
  for (size_t i = 0; i < a.results.scenarios.size(); ++i) {
    const ScenarioResult& x = a.results.scenarios[i];
    const ScenarioResult& y = b.results.scenarios[i];
    if (x.name != y.name || x.file != y.file || x.models != y.models ||
        x.exhaustive_total != y.exhaustive_total || x.exhaustive_limit != y.exhaustive_limit) {
      return Error::BadInput("shards of different scenario sets: " + both + " ran [" +
                             Names(a.results) + "] and [" + Names(b.results) +
                             "] (or the same names from different files, models or modes)");
    }
    if (x.job_commit != y.job_commit) {
      return Error::BadInput("shards of different job commits: " + both + " tested " + x.name +
                             " at " + x.job_commit + " and " + y.job_commit);
    }
  }
  return Ok();
}

// Reads the shards and checks that they are the whole of one run; sorted by shard index.
Result<std::vector<Shard>> ReadShards(const std::vector<fs::path>& dirs) {
  std::vector<Shard> shards;
  for (const fs::path& dir : dirs) {
    auto shard = ReadShard(dir);
    if (!shard) return shard.error();
    if (!shards.empty()) {
      if (Status s = SameRun(shards.front(), shard.value()); !s) return s.error();
    }
    shards.push_back(std::move(shard.value()));
  }
  std::sort(shards.begin(), shards.end(),
            [](const Shard& a, const Shard& b) { return a.info.index < b.info.index; });
  for (size_t i = 1; i < shards.size(); ++i) {
    if (shards[i].info.index == shards[i - 1].info.index) {
      return Error::BadInput("duplicate shard index " + std::to_string(shards[i].info.index) +
                             ": " + shards[i - 1].dir.string() + " and " + shards[i].dir.string());
    }
  }
  int count = shards.front().info.count;
  for (int index = 0; index < count; ++index) {
    bool found = std::any_of(shards.begin(), shards.end(),
                             [&](const Shard& s) { return s.info.index == index; });
    if (!found)
      return Error::BadInput("missing shard " + std::to_string(index) + "/" +
                             std::to_string(count));
  }
  return shards;
}

// Calls `on_line(line, line_no)` for each complete line; a torn last line is dropped.
template <class F>
Status ForEachLine(const fs::path& file, F on_line) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return Error::BadInput("cannot read " + file.string());
  std::string line;
  for (size_t line_no = 1; std::getline(in, line); ++line_no) {
    if (in.eof()) break;
    if (Status s = on_line(line, line_no); !s) return s;
  }
  return Ok();
}

Status ReadTrials(const Shard& shard, const fs::path& file, Journals& into) {
  return ForEachLine(file, [&](const std::string& line, size_t line_no) -> Status {
    std::string where = file.string() + ":" + std::to_string(line_no);
    MergedTrial t{line + "\n", {}, {}, {{}, 0, 0, false}};
    int trial = 0;
    try {
      Json j = Json::parse(line);
      trial = j.at("trial").get<int>();
      j.at("plan").get_to(t.plan);
      j.at("verdicts").get_to(t.verdicts);
      if (j.contains("exercise"))
        j.at("exercise").get_to(t.exercise);  // absent: a journal of before
    } catch (const Json::exception& e) {
      return Error::BadInput(where + ": damaged trials journal: " + JsonErrorText(e));
    }
    if (trial < 0 || trial % shard.info.count != shard.info.index) {
      return Error::BadInput(where + ": trial " + std::to_string(trial) + " is not of shard " +
                             std::to_string(shard.info.index) + "/" +
                             std::to_string(shard.info.count));
    }
    if (!into.trials.emplace(trial, std::move(t)).second) {
      return Error::BadInput(where + ": overlapping shards: trial " + std::to_string(trial) +
                             " is there twice");
    }
    return Ok();
  });
}

Status ReadHistory(const fs::path& file, const std::set<int>& trials, Journals& into) {
  return ForEachLine(file, [&](const std::string& line, size_t line_no) -> Status {
    int trial = 0;
    try {
      trial = Json::parse(line).at("trial").get<int>();
    } catch (const Json::exception& e) {
      return Error::BadInput(file.string() + ":" + std::to_string(line_no) +
                             ": damaged history journal: " + JsonErrorText(e));
    }
    if (!trials.count(trial)) {
      return Error::BadInput(file.string() + ":" + std::to_string(line_no) + ": trial " +
                             std::to_string(trial) + " is not in the shard's trials journal");
    }
    into.history[trial] += line + "\n";
    return Ok();
  });
}

// Every trial of scenario `i` from every shard, each checked against its results.json.
Result<Journals> ReadJournals(const std::vector<Shard>& shards, size_t i) {
  Journals journals;
  const std::string& name = shards.front().results.scenarios[i].name;
  for (const Shard& shard : shards) {
    size_t before = journals.trials.size();
    fs::path dir = ScenarioDir(shard.dir, name);
    std::error_code ec;
    if (shard.results.scenarios[i].trials == 0 && !fs::exists(TrialsJournal(dir), ec)) continue;
    if (Status s = ReadTrials(shard, TrialsJournal(dir), journals); !s) return s.error();
    int trials = static_cast<int>(journals.trials.size() - before);
    if (trials != shard.results.scenarios[i].trials) {
      return Error::BadInput(TrialsJournal(dir).string() + " holds " + std::to_string(trials) +
                             " trials, its results.json counts " +
                             std::to_string(shard.results.scenarios[i].trials));
    }
    std::set<int> mine;
    for (const auto& [t, line] : journals.trials) {
      if (t % shard.info.count == shard.info.index) mine.insert(t);
    }
    if (Status s = ReadHistory(HistoryJournal(dir), mine, journals); !s) return s.error();
  }
  int total = static_cast<int>(journals.trials.size());
  if (total > 0 && journals.trials.rbegin()->first != total - 1) {
    return Error::BadInput(shards.front().results.scenarios[i].name +
                           ": the shards' trials are not 0 to " + std::to_string(total - 1) +
                           ": a shard ran other --trials or --limit than the rest");
  }
  return journals;
}

// The scenario's result as an unsharded run would have folded it.
ScenarioResult Fold(const std::vector<Shard>& shards, size_t i, const Journals& journals) {
  ScenarioResult r = shards.front().results.scenarios[i];
  r.trials = 0;
  r.elapsed_s = 0;
  r.points.clear();
  r.trials_by_model.clear();
  r.outside_writes.clear();
  r.outside_more = 0;
  r.start_failures = StartFailureStats{};
  r.exercise = ExerciseStats{};
  r.exercise.min_exercised = shards.front().results.scenarios[i].exercise.min_exercised;
  // Every shard ran the same discovery: what it found (nothing) is the scenario's.
  r.exercise.no_points = shards.front().results.scenarios[i].exercise.no_points;
  for (InvariantResult& inv : r.invariants) inv = {inv.name, inv.expectation, 0, 0, {}, {}};
  std::vector<std::string> interceptions;
  for (const Shard& shard : shards) {
    r.elapsed_s += shard.results.scenarios[i].elapsed_s;
    interceptions.push_back(shard.results.scenarios[i].interception);
  }
  r.interception = MergedInterception(interceptions);
  Scenario s;
  s.file = r.file;
  uint64_t seed = shards.front().results.seed;
  for (const auto& [trial, line] : journals.trials) {
    r.Add(line.plan, line.verdicts,
          ReplayCommand(s, seed, trial, r.exhaustive_total > 0, r.exhaustive_limit), line.exercise);
  }
  return r;
}

// Copies the counterexample file of each merged example from the shard that made its trial.
Status CopyCounterexamples(const std::vector<Shard>& shards, size_t i, const fs::path& out,
                           ScenarioResult& r) {
  int count = shards.front().info.count;
  fs::path dir = CounterexampleDir(ScenarioDir(out, r.name));
  for (size_t k = 0; k < r.invariants.size(); ++k) {
    for (Counterexample& example : r.invariants[k].examples) {
      const Shard& shard = shards[static_cast<size_t>(example.trial % count)];
      const auto& made = shard.results.scenarios[i].invariants[k].examples;
      auto it = std::find_if(made.begin(), made.end(),
                             [&](const Counterexample& c) { return c.trial == example.trial; });
      if (it == made.end() || it->file.empty()) continue;
      fs::path name = fs::path(it->file).filename();
      auto c = ReadCounterexample(CounterexampleDir(ScenarioDir(shard.dir, r.name)) / name);
      if (!c) return Error::BadInput(c.error().message);
      example.file = AbsolutePath(dir / name).string();
      c.value().reproduce = "killpoint replay " + ShellQuote(example.file);
      if (Status s = WriteCounterexample(dir / name, c.value()); !s) return s;
    }
  }
  return Ok();
}

Status WriteJournals(const fs::path& dir, const Journals& journals) {
  std::string trials, history;
  for (const auto& [t, line] : journals.trials) trials += line.raw;
  for (const auto& [t, lines] : journals.history) history += lines;
  if (Status s = WriteFileAtomically(TrialsJournal(dir), trials); !s) return s;
  return WriteFileAtomically(HistoryJournal(dir), history);
}

}  // namespace

Result<RunResults> MergeShards(const std::vector<fs::path>& dirs, const fs::path& out) {
  if (dirs.empty()) return Error::BadInput("merge: name the output folders of the shards");
  for (const fs::path& dir : dirs) {
    std::error_code ec;
    if (fs::weakly_canonical(dir, ec) == fs::weakly_canonical(out, ec)) {
      return Error::BadInput("merge: --out " + out.string() +
                             " is one of the shards; merge into a folder of its own");
    }
  }
  auto shards = ReadShards(dirs);
  if (!shards) return shards.error();
  const std::vector<Shard>& all = shards.value();
  RunResults merged;
  merged.killpoint_version = all.front().results.killpoint_version;
  merged.seed = all.front().results.seed;
  merged.started_at = all.front().results.started_at;
  std::vector<std::string> interceptions;
  for (const Shard& shard : all) {
    merged.started_at = std::min(merged.started_at, shard.results.started_at);
    merged.elapsed_s = std::max(merged.elapsed_s, shard.results.elapsed_s);
    interceptions.push_back(shard.results.interception);
  }
  // Shards run on machines with and without seccomp are one run: said so, not refused.
  merged.interception = MergedInterception(interceptions);
  std::vector<Journals> journals;
  for (size_t i = 0; i < all.front().results.scenarios.size(); ++i) {
    auto j = ReadJournals(all, i);
    if (!j) return j.error();
    merged.scenarios.push_back(Fold(all, i, j.value()));
    journals.push_back(std::move(j.value()));
  }
  // Everything is read and checked: only now is anything written.
  for (size_t i = 0; i < merged.scenarios.size(); ++i) {
    fs::path dir = ScenarioDir(out, merged.scenarios[i].name);
    std::error_code ec;
    fs::remove_all(CounterexampleDir(dir), ec);
    fs::create_directories(dir, ec);
    if (ec) return Error::Harness("cannot create " + dir.string() + ": " + ec.message());
    if (Status s = WriteJournals(dir, journals[i]); !s) return s.error();
    if (Status s = CopyCounterexamples(all, i, out, merged.scenarios[i]); !s) return s.error();
  }
  Json j = merged;
  if (Status s = WriteFileAtomically(ResultsFile(out),
                                     j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n");
      !s) {
    return s.error();
  }
  return merged;
}

}  // namespace killpoint
