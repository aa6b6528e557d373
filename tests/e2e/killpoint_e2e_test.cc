#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "history/event_registry.h"
#include "history/history.h"
#include "history/history_log.h"
#include "killpoint_cli.h"

namespace killpoint::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// The bundled suite is run once, with the default trials and seed, for every verdict test.
class BundledSuite : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { run_ = &BundledRun(); }

  static void ExpectStatus(const std::string& scenario, const std::string& invariant,
                           const std::string& status) {
    nlohmann::json i = Invariant(run_->Results(), scenario, invariant);
    ASSERT_FALSE(i.is_null()) << scenario << " has no " << invariant;
    EXPECT_EQ(i["status"], status) << scenario << " " << invariant << ": " << i.dump();
  }
  static const CliRun* run_;
};
const CliRun* BundledSuite::run_ = nullptr;

TEST_F(BundledSuite, ExitsZeroAndPrintsTheTable) {
  EXPECT_EQ(run_->exit_code, 0) << run_->err;
  // 21 at the top, 22 in catalogue/, 2 in selftest/, 8 in sqlite/, 29 in services/ (real
  // servers, docs/catalogue.md): folders are read recursively.
  ASSERT_EQ(run_->Results()["scenarios"].size(), 82u);
  EXPECT_THAT(run_->out, HasSubstr("every must-hold invariant held"));
  EXPECT_THAT(run_->out, HasSubstr("expected, shown"));
  // scenarios/sqlite/ is made for --exhaustive (docs/sqlite-guarantees.md): sampled, what SQLite
  // merely allows (a corrupt file) may not show. Every other expected violation must.
  for (const auto& s : run_->Results()["scenarios"]) {
    if (s["name"].get<std::string>().rfind("sqlite/", 0) == 0) continue;
    for (const auto& i : s["invariants"])
      EXPECT_NE(i["status"], "expected, not demonstrated") << s["name"] << " " << i["name"];
  }
}

TEST_F(BundledSuite, SettleUpsertHolds) {
  ExpectStatus("settle/upsert", "one_row_per_date", "held");
  ExpectStatus("settle/upsert", "amount_matches_source", "held");
  ExpectStatus("settle/upsert", "converges", "held");
}

TEST_F(BundledSuite, SettleIncrementBreaksTheAmount) {
  ExpectStatus("settle/increment", "amount_matches_source", "expected, shown");
  ExpectStatus("settle/increment", "one_row_per_date", "held");
}

TEST_F(BundledSuite, SettleTimestampKeyDuplicatesRows) {
  ExpectStatus("settle/timestamp-key", "one_row_per_date", "expected, shown");
  nlohmann::json i = Invariant(run_->Results(), "settle/timestamp-key", "one_row_per_date");
  EXPECT_THAT(i["examples"][0]["explanation"].get<std::string>(),
              HasSubstr("rows in daily_settlement"));
}

TEST_F(BundledSuite, SettleInsertKeepsOneRowButCannotRerun) {
  ExpectStatus("settle/insert", "one_row_per_date", "held");
  ExpectStatus("settle/insert", "converges", "expected, shown");
  nlohmann::json i = Invariant(run_->Results(), "settle/insert", "converges");
  EXPECT_THAT(i["examples"][0]["explanation"].get<std::string>(), HasSubstr("UNIQUE"));
}

TEST_F(BundledSuite, ExecuteThenMarkPublishesTwiceButLosesNothing) {
  ExpectStatus("publish/execute-then-mark", "no_loss", "held");
  ExpectStatus("publish/execute-then-mark", "no_double_publish", "expected, shown");
}

TEST_F(BundledSuite, MarkThenExecuteLosesButNeverPublishesTwice) {
  ExpectStatus("publish/mark-then-execute", "no_double_publish", "held");
  ExpectStatus("publish/mark-then-execute", "no_loss", "expected, shown");
}

TEST_F(BundledSuite, IntentDoneHoldsWithAQueryableOrDeduplicatingDownstream) {
  for (const char* s : {"publish/intent-done-query", "publish/intent-done-dedupe"}) {
    ExpectStatus(s, "no_double_publish", "held");
    ExpectStatus(s, "no_silent_loss", "held");
    ExpectStatus(s, "no_loss", "held");
  }
}

TEST_F(BundledSuite, IntentDoneWithoutQueryAlertsInsteadOfLosingSilently) {
  ExpectStatus("publish/intent-done-no-query", "no_silent_loss", "held");
  ExpectStatus("publish/intent-done-no-query", "no_double_publish", "held");
  ExpectStatus("publish/intent-done-no-query", "no_loss", "expected, shown");
  nlohmann::json i = Invariant(run_->Results(), "publish/intent-done-no-query", "no_loss");
  EXPECT_THAT(i["examples"][0]["explanation"].get<std::string>(), HasSubstr("a human was alerted"));
}

TEST_F(BundledSuite, InPlaceSaveLeavesAnUnreadableStateFile) {
  ExpectStatus("publish/in-place-save", "state_readable", "expected, shown");
  ExpectStatus("publish/in-place-save", "converges", "expected, shown");
  nlohmann::json i = Invariant(run_->Results(), "publish/in-place-save", "state_readable");
  EXPECT_THAT(i["examples"][0]["plan"].get<std::string>(), HasSubstr("kill@mid_write"));
}

TEST_F(BundledSuite, PythonRenameWithoutDirectoryFsyncPublishesTwiceOnlyUnderPowerLoss) {
  ExpectStatus("python/rename-no-dirsync-process", "no_double_publish", "held");
  ExpectStatus("python/rename-no-dirsync-power", "no_double_publish", "expected, shown");
  nlohmann::json i =
      Invariant(run_->Results(), "python/rename-no-dirsync-power", "no_double_publish");
  EXPECT_THAT(i["examples"][0]["explanation"].get<std::string>(),
              HasSubstr("(under the power model)"));
  EXPECT_EQ(i["violated_by_model"].size(), 1u);
  EXPECT_GT(i["violated_by_model"]["power"].get<int>(), 0);
  // With the directory fsync'ed, at-most-once holds under both models.
  ExpectStatus("python/rename-dirsync", "no_double_publish", "held");
}

TEST_F(BundledSuite, AReferenceJobWithoutDirectoryFsyncIsExplainedByItsModel) {
  ExpectStatus("publish/intent-done-no-dirsync", "no_double_publish", "expected, shown");
  ExpectStatus("publish/intent-done-no-dirsync", "no_silent_loss", "held");
  nlohmann::json i =
      Invariant(run_->Results(), "publish/intent-done-no-dirsync", "no_double_publish");
  // A kill -9 cannot tell this save from the correct one; only a machine crash can.
  EXPECT_EQ(i["violated_by_model"].value("process", 0), 0);
  EXPECT_GT(i["violated_by_model"].value("power", 0), 0);
  EXPECT_THAT(run_->out, HasSubstr("by model: "));
}

// Retry strategies (docs/retry.md): the correct job keeps both policies and publishes once;
// each bug breaks what it should, and nothing else.
TEST_F(BundledSuite, RetryBackoffKeepsBothPoliciesAndPublishesOnce) {
  for (const char* i :
       {"retry_policy_respected", "no_double_publish", "no_loss", "converges", "state_readable"}) {
    ExpectStatus("retry/backoff", i, "held");
  }
}

TEST_F(BundledSuite, RetryTightLoopBreaksTheJobsPolicyOnly) {
  ExpectStatus("retry/tight-loop", "retry_policy_respected", "expected, shown");
  ExpectStatus("retry/tight-loop", "no_double_publish", "held");
  ExpectStatus("retry/tight-loop", "converges", "held");
  nlohmann::json i = Invariant(run_->Results(), "retry/tight-loop", "retry_policy_respected");
  EXPECT_THAT(i["examples"][0]["explanation"].get<std::string>(),
              ::testing::ContainsRegex(
                  "the job's attempt 2 of publish-2026-11-0[1-3] \\(in scheduler attempt 1 of "
                  "2026-11-0[1-3]\\) came 0 ms after attempt 1; the policy asks at least 10 ms"));
}

TEST_F(BundledSuite, RetryWithoutReloadingPublishesTwice) {
  ExpectStatus("retry/no-reload", "no_double_publish", "expected, shown");
  ExpectStatus("retry/no-reload", "retry_policy_respected", "expected, shown");
  ExpectStatus("retry/no-reload", "no_loss", "held");
  ExpectStatus("retry/no-reload", "converges", "held");
  nlohmann::json i = Invariant(run_->Results(), "retry/no-reload", "retry_policy_respected");
  EXPECT_THAT(i["examples"][0]["explanation"].get<std::string>(),
              HasSubstr("published again without asking the downstream first"));
}

// The scheduler's rate limit and breaker hold, and the histories show them at work.
TEST_F(BundledSuite, RetryRateLimitAndBreakerHoldAndAreSeenInTheHistory) {
  for (const char* s : {"retry/rate-limit", "retry/breaker"}) {
    for (const char* i : {"retry_policy_respected", "no_double_publish", "no_loss", "converges"})
      ExpectStatus(s, i, "held");
  }
  std::map<std::string, int> seen;
  for (const char* slug : {"retry-rate-limit", "retry-breaker"}) {
    auto log = ReadHistoryLog(run_->dir / slug / "history.jsonl");
    ASSERT_TRUE(log) << log.error().message;
    for (const auto& [trial, events] : log.value()) {
      for (const Event& e : events) {
        if (e.type == event::RetryWait::kType)
          ++seen[std::string(slug) + " wait " + e.data.value("reason", "")];
        if (e.type == event::Breaker::kType)
          ++seen[std::string(slug) + " breaker " + e.data.value("to", "")];
        if (e.type == event::JobRetry::kType) ++seen[std::string(slug) + " job_retry"];
      }
    }
  }
  EXPECT_GT(seen["retry-rate-limit wait rate_limit"], 0);
  EXPECT_GT(seen["retry-rate-limit job_retry"], 0);
  EXPECT_GT(seen["retry-breaker wait breaker_open"], 0);
  EXPECT_GT(seen["retry-breaker breaker open"], 0);
  EXPECT_GT(seen["retry-breaker breaker half_open"], 0);
  EXPECT_GT(seen["retry-breaker breaker closed"], 0);
}

// The job's own breaker under a downstream outage (faults.downstream_burst): the correct job
// opens it after 3 failures and probes it (half_open), and the check holds; the same job with
// its breaker switched off is caught by the probe's timing, not by its own word.
TEST_F(BundledSuite, TheJobsBreakerOpensInAnOutageAndOneSwitchedOffIsCaught) {
  for (const char* i : {"retry_policy_respected", "no_double_publish", "no_loss", "converges"})
    ExpectStatus("retry/job-breaker", i, "held");
  for (const char* i : {"no_double_publish", "no_loss", "converges"})
    ExpectStatus("retry/job-breaker-off", i, "held");
  ExpectStatus("retry/job-breaker-off", "retry_policy_respected", "expected, shown");
  nlohmann::json i = Invariant(run_->Results(), "retry/job-breaker-off", "retry_policy_respected");
  EXPECT_THAT(i["examples"][0]["explanation"].get<std::string>(),
              ::testing::ContainsRegex(
                  "the job's attempt 4 of publish-2026-11-0[1-3] \\(in scheduler attempt [1-3] of "
                  "2026-11-0[1-3]\\) started [0-9]+ ms after attempt 3 did, after 3 consecutive "
                  "failures \\(its breaker opens at 3\\); an open breaker waits 150 ms"));
  std::map<std::string, int> probes;
  auto log = ReadHistoryLog(run_->dir / "retry-job-breaker" / "history.jsonl");
  ASSERT_TRUE(log) << log.error().message;
  for (const auto& [trial, events] : log.value()) {
    for (const Event& e : events) {
      if (e.type == event::JobRetry::kType)
        ++probes[std::to_string(e.data.value("attempt", 0)) + " " + e.data.value("breaker", "")];
      if (e.type == event::Publish::kType && e.data.contains("burst")) ++probes["burst"];
    }
  }
  EXPECT_GT(probes["burst"], 0);
  EXPECT_GT(probes["4 half_open"], 0);  // opened by 3 failures: the probe
  EXPECT_GT(probes["5 half_open"], 0);  // the probe failed (the 4th error): opened again
  EXPECT_EQ(probes["4 closed"], 0);
}

TEST_F(BundledSuite, WritesAReportNamingEveryScenario) {
  std::string html = Slurp(run_->dir / "report.html");
  for (const auto& s : run_->Results()["scenarios"]) {
    EXPECT_THAT(html, HasSubstr(s["name"].get<std::string>()));
  }
  // Self-contained: nothing is fetched, whatever a job printed.
  for (const char* fetch :
       {"<script src", "<link", "@import", "url(", "src=\"http", "href=\"http"}) {
    EXPECT_EQ(html.find(fetch), std::string::npos) << fetch;
  }
}

TEST_F(BundledSuite, EveryViolationNamesItsTrialSeedAndReplay) {
  for (const auto& s : run_->Results()["scenarios"]) {
    for (const auto& i : s["invariants"]) {
      for (const auto& e : i["examples"]) {
        EXPECT_THAT(e["replay"].get<std::string>(),
                    HasSubstr("--seed 1 --trial " + std::to_string(e["trial"].get<int>())));
        // Each names what broke: a date, a file, or (the dogfood's journal_complete) the journal.
        EXPECT_THAT(
            e["explanation"].get<std::string>(),
            ::testing::ContainsRegex("2026-11-0[1-3]|state|settle|commits.db|trials.jsonl"));
      }
    }
  }
}

TEST(CorrectStrategies, HoldEveryMustHoldInvariantOver500Trials) {
  CliRun r = RunKillpoint("correct500", {"run", "scenarios/settle-upsert.json",
                                         "scenarios/publish-intent-done-query.json", "--trials",
                                         "250", "--seed", "2026"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  nlohmann::json results = r.Results();
  EXPECT_EQ(results["trials"], 500);
  for (const auto& s : results["scenarios"]) {
    for (const auto& i : s["invariants"])
      EXPECT_EQ(i["violated"], 0) << s["name"] << " " << i.dump();
  }
}

TEST(Gate, ExitsOneWhenAMustHoldInvariantBreaks) {
  CliRun r = RunKillpoint("gate", {"run", "tests/fixtures/increment-claimed-correct.json"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.out, HasSubstr("VIOLATED"));
  EXPECT_THAT(r.out, HasSubstr("replay: killpoint run " KILLPOINT_SOURCE_DIR
                               "/tests/fixtures/increment-claimed-correct.json --seed 1 --trial"));
  nlohmann::json i =
      Invariant(r.Results(), "fixture/increment-claimed-correct", "amount_matches_source");
  EXPECT_EQ(i["status"], "VIOLATED");
  EXPECT_THAT(i["examples"][0]["explanation"].get<std::string>(),
              ::testing::ContainsRegex("2026-11-0[12]: daily_settlement row"));
  // The replay line works from any directory (here the output folder): its path is absolute.
  std::string line = r.out.substr(r.out.find("replay: killpoint ") + 18);
  std::vector<std::string> argv = {KILLPOINT_BIN_DIR "/killpoint"};
  for (size_t at = 0, end; at < line.size() && line[at] != '\n'; at = end + 1) {
    end = line.find_first_of(" \n", at);
    argv.push_back(line.substr(at, end - at));
    if (line[end] == '\n') break;
  }
  auto replay = Spawn({argv, {}, r.dir, r.dir / "replay.out", r.dir / "replay.err"});
  ASSERT_TRUE(replay) << replay.error().message;
  EXPECT_EQ(replay.value()->Wait(std::chrono::minutes(2)).ShellCode(), 1)
      << Slurp(r.dir / "replay.out") << Slurp(r.dir / "replay.err");
}

TEST(Gate, ExitsTwoOnABadScenarioNamingFileAndField) {
  CliRun r = RunKillpoint("bad", {"run", "tests/fixtures/unknown-field.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("tests/fixtures/unknown-field.json: job.timeout: unknown field, did "
                               "you mean 'timeout_ms'?"));
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

// The command line explains itself: the version with its name, `help`, the exit codes, and the
// option a typo meant.
TEST(Gate, TheCommandLineExplainsItself) {
  CliRun version = RunKillpoint("version", {"--version"});
  EXPECT_EQ(version.out, std::string("killpoint ") + KILLPOINT_VERSION + "\n");
  CliRun help = RunKillpoint("help", {"help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, HasSubstr("Exit codes:"));
  EXPECT_EQ(help.out.substr(0, help.out.find('\n')), "Usage: killpoint [OPTIONS] SUBCOMMAND");
  EXPECT_THAT(help.out, HasSubstr("\n  init "));  // the subcommands, not help's own options
  EXPECT_THAT(help.out,
              HasSubstr("  4    nothing violated, but a scenario's planned kills never fired"));
  CliRun help_run = RunKillpoint("help-run", {"help", "run"});
  EXPECT_EQ(help_run.exit_code, 0);
  EXPECT_THAT(help_run.out, HasSubstr("--trials"));
  CliRun typo = RunKillpoint("typo", {"run", "scenarios/settle-upsert.json", "--trails", "3"});
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_THAT(typo.err, HasSubstr("--trails is no option of run: did you mean --trials?"));
  CliRun sub = RunKillpoint("sub-typo", {"rnu", "scenarios"});
  EXPECT_EQ(sub.exit_code, 2);
  EXPECT_THAT(sub.err, HasSubstr("killpoint: rnu is no subcommand: did you mean run?"));
  CliRun help_typo = RunKillpoint("help-typo", {"help", "rpelay"});
  EXPECT_EQ(help_typo.exit_code, 2);
  EXPECT_THAT(help_typo.err, HasSubstr("no subcommand 'rpelay': did you mean 'replay'?"));
  EXPECT_THAT(help_run.out, HasSubstr("a job that never ran"));  // exit 2, in every help
  // Each help begins with its own usage line, however it is asked for.
  EXPECT_EQ(help.out.substr(0, 17), "Usage: killpoint ");
  EXPECT_EQ(help_run.out.substr(0, 28), "Usage: killpoint run [OPTION") << help_run.out;
  CliRun help_explore = RunKillpoint("help-explore", {"help", "explore"});
  EXPECT_EQ(help_explore.out.substr(0, 32), "Usage: killpoint explore [OPTION") << help_explore.out;
  CliRun explore_help = RunKillpoint("explore-help", {"explore", "--help"});
  EXPECT_EQ(explore_help.out.substr(0, 32), "Usage: killpoint explore [OPTION") << explore_help.out;
  EXPECT_THAT(explore_help.out, HasSubstr("Exit codes:"));
  // init's command comes after `--`, and its usage line says so.
  CliRun help_init = RunKillpoint("help-init", {"help", "init"});
  EXPECT_EQ(help_init.out.substr(0, help_init.out.find('\n')),
            "Usage: killpoint init [OPTIONS] -- COMMAND...");
  // Run from the build tree, the docs are the source tree's (installed: package_deb).
  EXPECT_THAT(help.out, HasSubstr("docs: README.md and docs/ in the source tree"));
}

TEST(Gate, ExitsTwoOnAMissingJob) {
  CliRun r = RunKillpoint("missing", {"run", "tests/fixtures/missing-job.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("kp-no-such-job' is missing or not executable"));
}

TEST(Gate, ExitsTwoOnBadUsage) {
  EXPECT_EQ(RunKillpoint("usage", {"run", "scenarios", "--trials", "-3"}).exit_code, 2);
  EXPECT_EQ(RunKillpoint("nosuch", {"run", "no/such/dir"}).exit_code, 2);
}

TEST(PythonJob, IsKilledAtItsOwnFailpointAndRecovers) {
  CliRun r = RunKillpoint("python", {"run", "tests/fixtures/python-failpoint.json"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  auto log = ReadHistoryLog(r.dir / "fixture-python-failpoint" / "history.jsonl");
  ASSERT_TRUE(log) << log.error().message;
  ASSERT_EQ(log.value().size(), 2u);
  for (const auto& [trial, events] : log.value()) {
    auto kills = OfType(events, event::Kill::kType);
    ASSERT_GE(kills.size(), 1u) << "trial " << trial;
    for (const auto& k : kills) EXPECT_EQ(k.data["point"], "py_before_mark");
    auto exits = OfType(events, event::Exit::kType);
    ASSERT_GE(exits.size(), 2u);
    EXPECT_EQ(exits.front().data["signal"], 9);
    EXPECT_EQ(exits.back().data["code"], 0);
    // Each killed attempt had reached the point: the hit precedes its kill.
    EXPECT_EQ(OfType(events, event::Failpoint::kType).size(), exits.size());
  }
}

TEST(HungJob, IsKilledAtItsTimeoutOnEveryAttemptAndTheRunGoesOn) {
  CliRun r = RunKillpoint("hung", {"run", "tests/fixtures/hung-job.json"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;  // converges is expected to break
  auto log = ReadHistoryLog(r.dir / "fixture-hung-job" / "history.jsonl");
  ASSERT_TRUE(log) << log.error().message;
  const auto& events = log.value().at(0);
  // Two planned attempts, then two more in the final fault-free pass.
  EXPECT_EQ(OfType(events, event::Timeout::kType).size(), 4u);
  for (const auto& e : OfType(events, event::Exit::kType)) {
    EXPECT_EQ(e.data["signal"], 9);
    EXPECT_EQ(e.data["killed_by_harness"], true);
  }
  nlohmann::json i = Invariant(r.Results(), "fixture/hung-job", "converges");
  EXPECT_EQ(i["status"], "expected, shown");
  EXPECT_THAT(i["examples"][0]["explanation"].get<std::string>(),
              HasSubstr("after 4 attempts the last exited with code 137"));
}

TEST(Replay, KeepLeavesTheSandboxAndSaysHowToInspectIt) {
  CliRun r =
      RunKillpoint("keep", {"run", "scenarios/settle-increment.json", "--trial", "2", "--keep"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("settle/increment trial 2:"));
  EXPECT_THAT(r.out, HasSubstr("amount_matches_source VIOLATED: 2026-11-01"));
  size_t at = r.out.find("sandbox kept: ");
  ASSERT_NE(at, std::string::npos) << r.out;
  fs::path box = r.out.substr(at + 14, r.out.find('\n', at) - at - 14);
  EXPECT_TRUE(fs::exists(box / "work" / "settle.db")) << box;
  EXPECT_THAT(r.out, HasSubstr("sqlite3 " + (box / "work" / "settle.db").string()));
  // A SQLite job keeps no state file: nothing to `cat` (check.state_file has no default).
  EXPECT_THAT(r.out, Not(HasSubstr("cat "))) << r.out;
  fs::remove_all(box.parent_path());
}

TEST(Points, ListsNamedAndSyscallPointsInOrder) {
  CliRun r =
      RunKillpoint("points", {"points", "scenarios/publish-intent-done-query.json", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json points = nlohmann::json::parse(r.out);
  std::vector<std::string> names;
  for (const auto& p : points)
    names.push_back(p["point"].get<std::string>() + "#" +
                    std::to_string(p["occurrence"].get<int>()));
  auto at = [&](const std::string& n) {
    return std::find(names.begin(), names.end(), n) - names.begin();
  };
  // The job's own failpoints frame the syscalls they describe.
  EXPECT_LT(at("before_fsync#1"), at("fsync:publish-state.json.tmp#1"));
  EXPECT_LT(at("before_rename#1"), at("rename:publish-state.json.tmp:publish-state.json#1"));
  EXPECT_LT(at("rename:publish-state.json.tmp:publish-state.json#1"), at("after_rename#1"));
  EXPECT_LT(at("after_rename#1"), at("fsync:.#1"));  // the directory fsync of --save atomic
  EXPECT_LT(at("after_intent#1"), at("rename:publish-state.json.tmp:publish-state.json#2"));
  EXPECT_LT(at("fsync:.#2"), static_cast<long>(names.size()));
  for (const auto& p : points) {
    if (p["kind"] == "syscall" && p["point"].get<std::string>().rfind("write:", 0) == 0) {
      EXPECT_EQ(p["moments"], nlohmann::json({"before", "after", "mid"}));
    }
  }
}

TEST(Syscalls, AKillInTheMiddleOfAnInPlaceWriteWithinOnePageFallsBeforeIt) {
  CliRun r = RunKillpoint("split", {"run", "tests/fixtures/in-place-write-split.json"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  nlohmann::json i = Invariant(r.Results(), "fixture/in-place-write-split", "state_readable");
  EXPECT_EQ(i["status"], "expected, shown");
  // The job truncates the file, then writes it in two halves: a kill before the first write
  // leaves it empty, after it half of it. Neither is JSON. Both halves lie in the file's first
  // page, which a kill -9 cannot cut: the plan's mid kills fall before the write under the
  // process model, and say so (docs/persistence-models.md, "Kills in the middle of a write").
  auto log = ReadHistoryLog(r.dir / "fixture-in-place-write-split" / "history.jsonl");
  ASSERT_TRUE(log);
  std::set<std::string> moments, planned;
  for (const auto& [trial, events] : log.value()) {
    for (const auto& k : OfType(events, event::Kill::kType)) {
      moments.insert(k.data["when"].get<std::string>());
      EXPECT_EQ(k.data["point"], "write:publish-state.json");
      if (!k.data.contains("planned")) continue;
      planned.insert(k.data["planned"].get<std::string>());
      EXPECT_EQ(k.data["when"], "before") << k.data.dump();
      EXPECT_EQ(k.data["uncut"], "one_page") << k.data.dump();
      EXPECT_LT(k.data["offset"].get<int>() + k.data["bytes"].get<int>(), 4096) << k.data.dump();
    }
    for (const auto& f : OfType(events, event::Failpoint::kType)) {
      if (f.data["point"] == "write:publish-state.json") {
        EXPECT_GT(f.data["bytes"].get<int>(), 1);
      }
    }
  }
  EXPECT_EQ(moments, (std::set<std::string>{"before", "after"}));
  EXPECT_EQ(planned, (std::set<std::string>{"mid"}));
}

TEST(Torn, AnInPlaceStateWriteIsLeftUnreadable) {
  CliRun r = RunKillpoint("torn", {"run", "tests/fixtures/in-place-torn.json"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  nlohmann::json i = Invariant(r.Results(), "fixture/in-place-torn", "state_readable");
  EXPECT_EQ(i["status"], "expected, shown");
  EXPECT_EQ(i["violated_by_model"].value("torn", 0), i["violated"].get<int>());
  EXPECT_THAT(i["examples"][0]["explanation"].get<std::string>(),
              HasSubstr("(under the torn model)"));
  auto log = ReadHistoryLog(r.dir / "fixture-in-place-torn" / "history.jsonl");
  ASSERT_TRUE(log);
  int rollbacks = 0;
  for (const auto& [trial, events] : log.value()) {
    for (const auto& e : OfType(events, event::Rollback::kType)) {
      EXPECT_EQ(e.data["model"], "torn");
      ++rollbacks;
    }
  }
  EXPECT_GT(rollbacks, 0);
}

// A counterexample written before plans carried the torn model's seed (the kill has none): the
// runner derives the seed it was run with, so the torn cut, its rollback and the history are as
// recorded. The file is a real one of that version (sqlite/wal-normal, seed 1, trial 3).
TEST(Torn, ACounterexampleOfBeforeTheTornSeedReplaysTheSame) {
  const std::string file = "tests/fixtures/old-plans/torn-without-seed.json";
  ASSERT_EQ(Slurp(std::string(KILLPOINT_SOURCE_DIR "/") + file).find("torn_seed"),
            std::string::npos);
  CliRun r = RunKillpoint("torn-old-plan", {"replay", file});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("history: the same events in the same order as recorded"));
}

TEST(Exhaustive, TriesEveryCrashPointMomentAndModelOnce) {
  CliRun r = RunKillpoint("exhaustive",
                          {"run", "scenarios/python-rename-no-dirsync-power.json", "--exhaustive"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  nlohmann::json s = r.Results()["scenarios"][0];
  EXPECT_GT(s["exhaustive_total"].get<int>(), 8);
  EXPECT_EQ(s["trials"], s["exhaustive_total"]);
  EXPECT_THAT(r.out, HasSubstr("combinations tried, all"));
  EXPECT_THAT(r.out, HasSubstr("first attempt of each of 2 dates"));
  // Every kill of an exhaustive run is a distinct (date, point, occurrence, moment, model), on
  // the last date its plan runs, and both dates are killed.
  std::ifstream in(r.dir / "python-rename-no-dirsync-power" / "trials.jsonl");
  std::set<std::string> seen, dates;
  std::string line;
  while (std::getline(in, line)) {
    auto killed = nlohmann::json::parse(line)["plan"]["runs"].back();
    dates.insert(killed["biz_date"].get<std::string>());
    EXPECT_TRUE(seen.insert(killed.dump()).second) << line;
  }
  EXPECT_EQ(static_cast<int>(seen.size()), s["trials"].get<int>());
  EXPECT_EQ(dates, (std::set<std::string>{"2026-11-01", "2026-11-02"}));
  nlohmann::json i = Invariant(r.Results(), "python/rename-no-dirsync-power", "no_double_publish");
  EXPECT_EQ(i["status"], "expected, shown");
  EXPECT_THAT(i["examples"][0]["replay"].get<std::string>(),
              HasSubstr("--exhaustive --seed 1 --trial"));
}

// Issue 33: a save that breaks only once a state exists (an unlink, then the rename) is safe
// on the first date; --exhaustive kills every date's points and finds it on the second, where
// it killed only the first date before. Its correct twin holds.
TEST(Exhaustive, KillsEveryDateAndFindsABugOfTheSecondOnly) {
  CliRun bug =
      RunKillpoint("exhaustive-second-date",
                   {"run", "tests/fixtures/exhaustive/catchup-replace.json", "--exhaustive"});
  EXPECT_EQ(bug.exit_code, 1) << bug.out << bug.err;
  nlohmann::json i = Invariant(bug.Results(), "exhaustive/catchup-replace", "no_double_publish");
  EXPECT_EQ(i["status"], "VIOLATED");
  ASSERT_FALSE(i["examples"].empty());
  std::string replay = i["examples"][0]["replay"].get<std::string>();
  EXPECT_THAT(replay, HasSubstr("--exhaustive --seed"));
  // The counterexample's kill: after the unlink of the second date's save.
  std::ifstream in(bug.dir / "exhaustive-catchup-replace" / "trials.jsonl");
  std::string line;
  bool unlink_on_the_second_date = false;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line);
    auto killed = j["plan"]["runs"].back();
    if (killed["biz_date"] == "2026-11-02" &&
        killed["attempts"][0]["kill_point"].get<std::string>().starts_with("unlink:"))
      unlink_on_the_second_date = true;
  }
  EXPECT_TRUE(unlink_on_the_second_date);

  CliRun fixed =
      RunKillpoint("exhaustive-second-date-fixed",
                   {"run", "tests/fixtures/exhaustive/catchup-correct.json", "--exhaustive"});
  EXPECT_EQ(fixed.exit_code, 0) << fixed.out << fixed.err;

  // A --limit spreads its trials over both dates instead of stopping inside the first.
  CliRun limited = RunKillpoint(
      "exhaustive-limit",
      {"run", "tests/fixtures/exhaustive/catchup-replace.json", "--exhaustive", "--limit", "6"});
  EXPECT_THAT(limited.out, HasSubstr("(--limit 6, spread over all of them"));
  nlohmann::json s = limited.Results()["scenarios"][0];
  EXPECT_EQ(s["trials"], 6);
  EXPECT_EQ(s["exhaustive_limit"], 6);
  std::set<std::string> dates;
  std::ifstream lin(limited.dir / "exhaustive-catchup-replace" / "trials.jsonl");
  while (std::getline(lin, line)) {
    dates.insert(nlohmann::json::parse(line)["plan"]["runs"].back()["biz_date"].get<std::string>());
  }
  EXPECT_EQ(dates, (std::set<std::string>{"2026-11-01", "2026-11-02"}));
  // Its replay line names the limit, and replays the same combination.
  nlohmann::json li = Invariant(limited.Results(), "exhaustive/catchup-replace", "no_loss");
  if (!li["examples"].empty()) {
    EXPECT_THAT(li["examples"][0]["replay"].get<std::string>(), HasSubstr("--limit 6 --seed"));
  }
}

// Issue 33: the replay line a run prints (`run FILE --seed S --trial N --keep`, no --out)
// writes to a folder of its own, killpoint-trial-N, never over the run's killpoint-out.
TEST(Replay, OneTrialWithoutOutLeavesTheRunsFolderAlone) {
  fs::path dir = FreshDir("replay-own-folder");
  fs::create_directories(dir / "killpoint-out");
  std::ofstream(dir / "killpoint-out" / "results.json") << "{\"the run\": true}";
  auto p = Spawn({{KILLPOINT_BIN_DIR "/killpoint", "run",
                   std::string(KILLPOINT_SOURCE_DIR) + "/scenarios/publish-execute-then-mark.json",
                   "--seed", "9", "--trial", "4"},
                  {},
                  dir,
                  (dir / "cli.out").string(),
                  (dir / "cli.err").string()});
  ASSERT_TRUE(p) << p.error().message;
  ExitStatus st = p.value()->Wait(std::chrono::minutes(2));
  EXPECT_TRUE(st.exited) << Slurp(dir / "cli.err");
  EXPECT_EQ(Slurp(dir / "killpoint-out" / "results.json"), "{\"the run\": true}");
  EXPECT_TRUE(fs::exists(dir / "killpoint-trial-4" / "results.json")) << Slurp(dir / "cli.err");
}

TEST(Replay, OneTrialReproducesThePlanOfTheFullRun) {
  CliRun full = RunKillpoint(
      "full", {"run", "scenarios/publish-execute-then-mark.json", "--trials", "6", "--seed", "9"});
  CliRun one = RunKillpoint(
      "one", {"run", "scenarios/publish-execute-then-mark.json", "--seed", "9", "--trial", "4"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  auto plan_of = [](const CliRun& r) {
    std::ifstream in(r.dir / "publish-execute-then-mark" / "trials.jsonl");
    std::string line;
    nlohmann::json found;
    while (std::getline(in, line)) {
      auto j = nlohmann::json::parse(line);
      if (j["trial"] == 4) found = j["plan"];
    }
    return found;
  };
  EXPECT_FALSE(plan_of(full).is_null());
  EXPECT_EQ(plan_of(full), plan_of(one));
  EXPECT_THAT(one.out, HasSubstr("publish/execute-then-mark trial 4:"));
}

}  // namespace
}  // namespace killpoint::testing
