// Which interception backend a run used (issue 32, docs/reports.md): `killpoint run` records it
// in run.json and results.json and names it on the terminal's last line, in the Markdown summary
// and in JUnit, under --intercept preload and seccomp; a scenario that needs no interception
// claims none; --resume with another backend is exit 2 naming --intercept; `explore` and
// `replay` print it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "channel/interception.h"
#include "killpoint_cli.h"

namespace killpoint::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A bundled scenario whose power model needs interception, and one that needs none (named
// failpoints, the process model).
const std::string kIntercepted = "scenarios/python-rename-no-dirsync-power.json";
const std::string kPlain = "scenarios/publish-execute-then-mark.json";

// `killpoint ARGS...` as given, no --out added (RunKillpoint adds one to run and explore).
CliRun Cli(const std::string& name, std::vector<std::string> args) {
  CliRun r;
  r.dir = FreshDir(name);
  std::vector<std::string> argv = {KILLPOINT_BIN_DIR "/killpoint"};
  argv.insert(argv.end(), args.begin(), args.end());
  fs::path logs = r.dir / "cli";
  auto p = Spawn({argv, {}, KILLPOINT_SOURCE_DIR, logs.string() + ".out", logs.string() + ".err"});
  if (!p) {
    r.err = p.error().message;
    return r;
  }
  r.exit_code = p.value()->Wait(std::chrono::minutes(20)).ShellCode();
  r.out = Slurp(logs.string() + ".out");
  r.err = Slurp(logs.string() + ".err");
  return r;
}

// The table's totals line, the verdict with it when it fits: from "N trials in" to the output
// paths that follow the table.
std::string Totals(const std::string& out) {
  size_t end = out.find("\nresults: ");
  if (end == std::string::npos) return "";
  size_t start = out.rfind("\n\n", end);
  return start == std::string::npos ? "" : out.substr(start + 2, end - start - 2);
}

// Runs kIntercepted under `backend` and checks that every output names it.
void RunsAndSays(const std::string& backend) {
  CliRun r = RunKillpoint("intercept-" + backend,
                          {"run", kIntercepted, "--trials", "4", "--intercept", backend});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.Results()["interception"], backend);
  EXPECT_EQ(r.Results()["scenarios"][0]["interception"], backend);
  auto manifest = nlohmann::json::parse(Slurp(r.dir / "run.json"));
  EXPECT_EQ(manifest["intercept"], backend);
  EXPECT_THAT(Totals(r.out), HasSubstr(" trials/s), seed 1, interception " + backend + ":"))
      << r.out;
  EXPECT_THAT(Slurp(r.dir / "summary.md"),
              HasSubstr(" \u00B7 interception " + backend + " \u00B7 "));
  EXPECT_THAT(Slurp(r.dir / "junit.xml"),
              HasSubstr("<property name=\"interception\" value=\"" + backend + "\"/>"));
  EXPECT_THAT(Slurp(r.dir / "report.html"), HasSubstr("<td>" + backend + "</td>"));
}

TEST(Interception, APreloadRunSaysSoInEveryOutput) { RunsAndSays("preload"); }

TEST(Interception, ASeccompRunSaysSoInEveryOutput) {
  if (Status s = SeccompAvailable(); !s) GTEST_SKIP() << s.error().message;
  RunsAndSays("seccomp");
}

TEST(Interception, ARunWhoseScenariosNeedNoneClaimsNone) {
  CliRun r =
      RunKillpoint("intercept-none", {"run", kPlain, "--trials", "2", "--intercept", "preload"});
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.out << r.err;
  EXPECT_EQ(r.Results()["interception"], "none");
  EXPECT_EQ(r.Results()["scenarios"][0]["interception"], "none");
  EXPECT_THAT(Totals(r.out), HasSubstr(" trials/s), seed 1: ")) << r.out;
  EXPECT_THAT(r.out, Not(HasSubstr("interception")));
  EXPECT_THAT(Slurp(r.dir / "summary.md"), Not(HasSubstr("interception")));
  EXPECT_THAT(Slurp(r.dir / "junit.xml"), Not(HasSubstr("interception")));
  EXPECT_THAT(Slurp(r.dir / "report.html"), Not(HasSubstr("interception")));
}

TEST(Interception, AResumeWithAnotherBackendIsRefusedNamingTheOption) {
  if (Status s = SeccompAvailable(); !s) GTEST_SKIP() << s.error().message;
  CliRun first = RunKillpoint("intercept-resume",
                              {"run", kIntercepted, "--trials", "2", "--intercept", "preload"});
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  std::string results = Slurp(first.dir / "results.json");
  CliRun resumed =
      Cli("intercept-resumed", {"run", kIntercepted, "--trials", "2", "--out", first.dir.string(),
                                "--resume", "--intercept", "seccomp"});
  EXPECT_EQ(resumed.exit_code, 2) << resumed.out << resumed.err;
  EXPECT_THAT(resumed.err,
              HasSubstr("run.json: --resume must run what the interrupted run ran: --intercept "
                        "was preload, now seccomp"));
  EXPECT_EQ(Slurp(first.dir / "results.json"), results);  // nothing touched
  // The same backend resumes (a finished run: nothing to do).
  CliRun same = Cli("intercept-same", {"run", kIntercepted, "--trials", "2", "--out",
                                       first.dir.string(), "--resume", "--intercept", "preload"});
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
}

// explore's "search again" line, from "killpoint explore" to the end of its line.
std::string SearchAgain(const std::string& out) {
  size_t at = out.find("search again: ");
  if (at == std::string::npos) return "";
  size_t end = out.find('\n', at);
  return out.substr(at + 14, end == std::string::npos ? end : end - at - 14);
}

TEST(Interception, ExploreAndReplayPrintTheBackend) {
  CliRun explore = RunKillpoint(
      "intercept-explore",
      {"explore", kIntercepted, "--trials", "2", "--shrink-trials", "0", "--intercept", "preload"});
  EXPECT_THAT(explore.out, HasSubstr("\n  interception: preload\n")) << explore.out << explore.err;
  // The search again line repeats a backend other than the machine's default.
  std::string again = SearchAgain(explore.out);
  EXPECT_THAT(again, ::testing::StartsWith("killpoint explore " KILLPOINT_SOURCE_DIR "/" +
                                           kIntercepted + " --seed 1 --trials "))
      << explore.out;
  if (DefaultInterception() == Interception::kPreload) {
    EXPECT_THAT(again, Not(HasSubstr("--intercept"))) << again;
  } else {
    EXPECT_THAT(again, ::testing::EndsWith(" --intercept preload")) << again;
  }
  CliRun plain = RunKillpoint(
      "intercept-explore-none",
      {"explore", kPlain, "--trials", "2", "--shrink-trials", "0", "--intercept", "preload"});
  EXPECT_THAT(plain.out, HasSubstr("\n  interception: none (the scenario needs none)\n"))
      << plain.out << plain.err;
  // A scenario that needs no interception used none: nothing to repeat.
  EXPECT_THAT(SearchAgain(plain.out),
              ::testing::StartsWith("killpoint explore " KILLPOINT_SOURCE_DIR "/" + kPlain))
      << plain.out;
  EXPECT_THAT(SearchAgain(plain.out), Not(HasSubstr("--intercept"))) << plain.out;

  CliRun run = RunKillpoint("intercept-for-replay",
                            {"run", kIntercepted, "--trials", "4", "--intercept", "preload"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  std::string file;
  for (const auto& inv : run.Results()["scenarios"][0]["invariants"]) {
    for (const auto& e : inv["examples"]) {
      if (file.empty() && !e["file"].get<std::string>().empty()) file = e["file"];
    }
  }
  ASSERT_FALSE(file.empty()) << "no counterexample file to replay: " << run.out;
  CliRun replay = Cli("intercept-replay", {"replay", file, "--intercept", "preload"});
  EXPECT_THAT(replay.out, HasSubstr("\ninterception: preload\n")) << replay.out << replay.err;
}

// The default backend is not named: the line searches the same way on this machine without it.
TEST(Interception, ExploresSearchAgainLeavesTheDefaultBackendOut) {
  if (Status s = SeccompAvailable(); !s) GTEST_SKIP() << s.error().message;
  CliRun explore = RunKillpoint(
      "intercept-explore-seccomp",
      {"explore", kIntercepted, "--trials", "2", "--shrink-trials", "0", "--intercept", "seccomp"});
  EXPECT_THAT(explore.out, HasSubstr("\n  interception: seccomp\n")) << explore.out << explore.err;
  std::string again = SearchAgain(explore.out);
  EXPECT_THAT(again, ::testing::StartsWith("killpoint explore ")) << explore.out;
  EXPECT_THAT(again, Not(HasSubstr("--intercept"))) << again;
}

}  // namespace
}  // namespace killpoint::testing
