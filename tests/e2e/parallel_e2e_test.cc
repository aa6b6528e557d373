// --jobs N end to end (docs/performance.md, "Parallel trials"): the same run with 1, 2 and 4
// workers gives the same results, verdicts, examples and counterexample files, and the same
// journals trial for trial; trials really run at once with N > 1 and never with N = 1.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <regex>
#include <set>
#include <sstream>

#include "killpoint_cli.h"

namespace killpoint::testing {
namespace {

// Scenarios whose trials violate invariants (so that examples and counterexample files are
// chosen) under kills, the power model, duplicate triggers and downstream faults.
const std::vector<std::string> kScenarios = {
    "scenarios/settle-timestamp-key.json", "scenarios/publish-execute-then-mark.json",
    "scenarios/python-rename-no-dirsync-power.json", "scenarios/catalogue/refund-uuid.json"};

std::vector<std::string> Args(const std::string& jobs, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"run"};
  args.insert(args.end(), kScenarios.begin(), kScenarios.end());
  args.insert(args.end(), {"--trials", "16", "--seed", "3", "--quiet", "--jobs", jobs});
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// What the jobs themselves make differently on every run, whatever --jobs is: the
// timestamp-keyed rows' created_at and the refund's fresh UUIDs, quoted in explanations.
std::string Masked(std::string text) {
  static const std::regex time(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z)");
  static const std::regex uuid(R"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})");
  return std::regex_replace(std::regex_replace(text, time, "<time>"), uuid, "<uuid>");
}

std::string Comparable(const CliRun& run) {
  return Masked(ComparableResults(run.Results()).dump(1));
}

std::vector<std::string> SortedLines(const fs::path& file) {
  std::vector<std::string> lines;
  std::istringstream in(Slurp(file));
  for (std::string line; std::getline(in, line);) lines.push_back(Masked(line));
  std::sort(lines.begin(), lines.end());
  return lines;
}

// Each counterexample file by name, without what differs between equal runs (where it was
// written, and the real-time stamps of its events).
std::map<std::string, std::string> Counterexamples(const fs::path& dir) {
  std::map<std::string, std::string> out;
  std::error_code ec;
  for (const auto& f : fs::directory_iterator(dir / "counterexamples", ec)) {
    nlohmann::json j = nlohmann::json::parse(Slurp(f.path()));
    out[f.path().filename().string()] = Masked(nlohmann::json{
        {"plan", j["plan"]},
        {"invariant", j["invariant"]},
        {"verdicts", j["verdicts"]},
        {"explanation", j["explanation"]}}.dump(1));
  }
  return out;
}

class Parallel : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    for (const char* jobs : {"1", "2", "4"})
      runs_[jobs] = new CliRun(RunKillpoint(std::string("jobs-") + jobs, Args(jobs)));
  }
  static void TearDownTestSuite() {
    for (auto& [jobs, run] : runs_) delete run;
  }
  static std::map<std::string, CliRun*> runs_;
};
std::map<std::string, CliRun*> Parallel::runs_;

TEST_F(Parallel, ResultsAreTheSameWhateverTheNumberOfWorkers) {
  for (const auto& [jobs, run] : runs_) {
    ASSERT_EQ(run->exit_code, 0) << "--jobs " << jobs << ": " << run->err;
    EXPECT_EQ(run->Results()["scenarios"].size(), kScenarios.size());
  }
  int examples = 0;
  for (const auto& s : runs_["1"]->Results()["scenarios"])
    for (const auto& inv : s["invariants"]) examples += static_cast<int>(inv["examples"].size());
  EXPECT_GE(examples, 6);  // the comparison below compares chosen examples, not empty lists
  for (const char* jobs : {"2", "4"}) {
    EXPECT_EQ(Comparable(*runs_[jobs]), Comparable(*runs_["1"])) << "--jobs " << jobs;
  }
}

TEST_F(Parallel, CounterexampleFilesAndJournalsAreTheSameTrialForTrial) {
  for (const auto& s : runs_["1"]->Results()["scenarios"]) {
    std::string slug = s["name"].get<std::string>();
    std::replace(slug.begin(), slug.end(), '/', '-');
    auto one = Counterexamples(runs_["1"]->dir / slug);
    std::set<std::string> named;  // exactly the files the examples name: none left over
    for (const auto& inv : s["invariants"])
      for (const auto& e : inv["examples"])
        named.insert(fs::path(e["file"].get<std::string>()).filename().string());
    std::set<std::string> present;
    for (const auto& [name, c] : one) present.insert(name);
    EXPECT_EQ(present, named) << slug;
    for (const char* jobs : {"2", "4"}) {
      EXPECT_EQ(Counterexamples(runs_[jobs]->dir / slug), one) << slug << " --jobs " << jobs;
      // Journal lines are appended as trials finish, so their order may differ; the lines
      // themselves may not.
      EXPECT_EQ(SortedLines(runs_[jobs]->dir / slug / "trials.jsonl"),
                SortedLines(runs_["1"]->dir / slug / "trials.jsonl"))
          << slug << " --jobs " << jobs;
    }
  }
}

TEST(ParallelExhaustive, EveryCombinationOnceWhateverTheNumberOfWorkers) {
  auto args = [](const char* jobs) {
    return std::vector<std::string>{"run",          "scenarios/python-rename-no-dirsync-power.json",
                                    "--exhaustive", "--limit",
                                    "40",           "--quiet",
                                    "--jobs",       jobs};
  };
  CliRun one = RunKillpoint("exh-jobs-1", args("1"));
  CliRun three = RunKillpoint("exh-jobs-3", args("3"));
  ASSERT_EQ(one.exit_code, 0) << one.err;
  ASSERT_EQ(three.exit_code, 0) << three.err;
  const nlohmann::json& s = one.Results()["scenarios"][0];
  EXPECT_GE(s["trials"].get<int>(), 10);
  EXPECT_EQ(s["trials"], s["exhaustive_total"]);  // every combination, each once
  EXPECT_EQ(Comparable(three), Comparable(one));
}

// The job records when each attempt ran: some of them overlap with --jobs 3, none with 1.
class Spans : public ::testing::Test {
 protected:
  std::vector<std::pair<long long, long long>> Run(const std::string& jobs) {
    fs::path spans = FreshDir("spans-" + jobs);
    ::setenv("KP_SPANS_DIR", spans.c_str(), 1);
    CliRun r = RunKillpoint("spans-run-" + jobs, {"run", "tests/fixtures/parallel/spans.json",
                                                  "--quiet", "--jobs", jobs});
    ::unsetenv("KP_SPANS_DIR");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<std::pair<long long, long long>> out;
    for (const auto& f : fs::directory_iterator(spans)) {
      std::istringstream in(Slurp(f.path()));
      long long start = 0, end = 0;
      in >> start >> end;
      out.emplace_back(start, end);
    }
    EXPECT_EQ(out.size(), 6u);  // one attempt per trial
    return out;
  }
  static int Overlapping(const std::vector<std::pair<long long, long long>>& spans) {
    int n = 0;
    for (size_t i = 0; i < spans.size(); ++i)
      for (size_t j = i + 1; j < spans.size(); ++j)
        n += spans[i].first < spans[j].second && spans[j].first < spans[i].second;
    return n;
  }
};

TEST_F(Spans, TrialsRunAtOnceWithSeveralWorkersAndOneAtATimeWithOne) {
  EXPECT_GT(Overlapping(Run("3")), 0);
  EXPECT_EQ(Overlapping(Run("1")), 0);
}

TEST(ParallelRefusals, JobsOutOfRangeIsExitTwo) {
  for (const char* jobs : {"0", "-1", "1025", "two"}) {
    CliRun r = RunKillpoint(std::string("jobs-bad-") + jobs, {"run", "scenarios/settle-upsert.json",
                                                              "--trials", "1", "--jobs", jobs});
    EXPECT_EQ(r.exit_code, 2) << jobs << ": " << r.out << r.err;
    EXPECT_THAT(r.err, ::testing::HasSubstr("--jobs")) << jobs;
  }
}

}  // namespace
}  // namespace killpoint::testing
