// Writes outside the sandbox (issue 18, docs/syscall-shim.md "Writes outside the sandbox"): a
// shell job writes next to its sandbox and to an absolute path in a folder of this test; the
// history records them, every report shows them, and writes_in_sandbox makes them a violation.
// A job that writes only inside shows nothing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "history/event_registry.h"
#include "history/history.h"
#include "history/history_log.h"
#include "killpoint_cli.h"

namespace killpoint::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A one-date, one-trial scenario in `dir` running write_outside.sh; `outside` is its
// argument (empty: it writes only inside). `must_hold`: the invariants. With `syscall_points`,
// the first attempt is killed at its open of "in" (the shim is loaded for that); without, the
// shim is loaded for writes_in_sandbox alone, if it is named.
fs::path Scenario(const fs::path& dir, const std::string& outside, const std::string& must_hold,
                  bool syscall_points = true) {
  fs::create_directories(dir / "elsewhere");
  nlohmann::json s = {
      {"name", "fixture/outside-writes"},
      {"job",
       {{"command",
         {(fs::path(KILLPOINT_SOURCE_DIR) / "tests/fixtures/outside-writes/write_outside.sh")
              .string(),
          outside}},
        {"timeout_ms", 10000}}},
      {"dates", {"2026-11-01"}},
      {"invariants", {{"must_hold", nlohmann::json::parse(must_hold)}}},
      {"trials", 1}};
  if (syscall_points) {
    s["syscall_points"] = true;
    s["failpoints"] = {"open:in"};
  }
  fs::path file = dir / "scenario.json";
  std::ofstream(file) << s.dump(2);
  return file;
}

std::vector<Event> OutsideEvents(const CliRun& r) {
  auto log = ReadHistoryLog(r.dir / "fixture-outside-writes" / "history.jsonl");
  EXPECT_TRUE(log) << (log ? "" : log.error().message);
  std::vector<Event> out;
  if (!log) return out;
  for (const auto& [trial, events] : log.value()) {
    for (const Event& e : OfType(events, event::OutsideWrites::kType)) out.push_back(e);
  }
  return out;
}

TEST(OutsideWrites, AreRecordedAndShownInEveryReportAsAWarning) {
  fs::path dir = FreshDir("outside-warn");
  std::string target = (dir / "elsewhere" / "state.json").string();
  CliRun r =
      RunKillpoint("outside-warn-run", {"run", Scenario(dir, target, R"(["converges"])").string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;

  // The history: each attempt's writes, with path, kind and op; the sandbox's and the
  // harness's own files (stdout, /dev/null) are not among them.
  std::vector<Event> events = OutsideEvents(r);
  ASSERT_FALSE(events.empty());
  const Event& first = events.front();
  EXPECT_EQ(first.attempt, 1);
  EXPECT_EQ(first.data["writes"],
            nlohmann::json::parse(
                R"([{"path": "$KILLPOINT_WORKDIR/../x", "kind": "trial", "ops": ["open"]},
                                      {"path": ")" +
                target + R"(", "kind": "temp", "ops": ["open"]}])"))
      << first.data.dump();

  // results.json: per scenario, distinct paths with how many trials wrote them.
  const auto& s = r.Results()["scenarios"][0];
  ASSERT_TRUE(s.contains("outside_writes")) << s.dump();
  ASSERT_EQ(s["outside_writes"].size(), 2u);
  EXPECT_EQ(s["outside_writes"][0]["path"], "$KILLPOINT_WORKDIR/../x");
  EXPECT_EQ(s["outside_writes"][0]["trials"], 1);
  EXPECT_EQ(s["outside_writes"][1]["path"], target);

  std::string sentence = "this job wrote " + target + " (open) outside its sandbox in 1 of 1 trial";
  // The terminal wraps its lines.
  EXPECT_THAT(
      r.out,
      HasSubstr("OUTSIDE THE SANDBOX: this job wrote $KILLPOINT_WORKDIR/../x (open) outside its"));
  EXPECT_THAT(r.out,
              HasSubstr("OUTSIDE THE SANDBOX: this job wrote\n                       " + target));
  EXPECT_THAT(
      r.out,
      HasSubstr("note: a warning: writes_in_sandbox in the scenario's invariants.must_hold"));
  EXPECT_THAT(
      Slurp(r.dir / "report.html"),
      HasSubstr(sentence + ": no persistence model applied to it, and the next trial sees it"));
  EXPECT_THAT(Slurp(r.dir / "report.html"),
              HasSubstr("$KILLPOINT_WORKDIR/../x (open) outside its sandbox"));
  std::string md = Slurp(r.dir / "summary.md");
  EXPECT_THAT(md, HasSubstr("### Writes outside the sandbox"));
  EXPECT_THAT(md, HasSubstr(target + " (open) outside its sandbox"));
}

TEST(OutsideWrites, AreAViolationWhenTheScenarioChecksWritesInSandbox) {
  fs::path dir = FreshDir("outside-violation");
  std::string target = (dir / "elsewhere" / "state.json").string();
  CliRun r = RunKillpoint(
      "outside-violation-run",
      {"run", Scenario(dir, target, R"(["converges", "writes_in_sandbox"])", false).string()});
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  nlohmann::json inv = Invariant(r.Results(), "fixture/outside-writes", "writes_in_sandbox");
  EXPECT_EQ(inv["violated"], 1);
  ASSERT_FALSE(inv["examples"].empty());
  EXPECT_THAT(
      inv["examples"][0]["explanation"].get<std::string>(),
      HasSubstr(
          "attempt 1 of 2026-11-01 wrote $KILLPOINT_WORKDIR/../x (open) outside its sandbox: no "
          "persistence model applied to it, and the later attempts of the trial see it (1 more "
          "path"));
  EXPECT_THAT(r.out, Not(HasSubstr("a warning: writes_in_sandbox")));
}

TEST(OutsideWrites, AJobThatWritesOnlyInsideShowsNothing) {
  fs::path dir = FreshDir("outside-none");
  CliRun r =
      RunKillpoint("outside-none-run",
                   {"run", Scenario(dir, "", R"(["converges", "writes_in_sandbox"])").string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(OutsideEvents(r).empty());
  EXPECT_FALSE(r.Results()["scenarios"][0].contains("outside_writes"));
  EXPECT_EQ(Invariant(r.Results(), "fixture/outside-writes", "writes_in_sandbox")["violated"], 0);
  EXPECT_THAT(r.out, Not(HasSubstr("OUTSIDE THE SANDBOX")));
  EXPECT_THAT(Slurp(r.dir / "summary.md"), Not(HasSubstr("outside its sandbox")));
  EXPECT_THAT(Slurp(r.dir / "report.html"), Not(HasSubstr("outside its sandbox")));
}

}  // namespace
}  // namespace killpoint::testing
