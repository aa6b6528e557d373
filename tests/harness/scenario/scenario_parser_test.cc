#include "scenario/scenario_parser.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "error_of.h"

namespace killpoint {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

const char* kValid = R"({
  "name": "settle/upsert",
  "job": {"command": ["{bindir}/kp-settle", "--strategy", "upsert"], "setup": ["{bindir}/kp-settle", "--init", "--dates", "{dates}"]},
  "dates": ["2026-11-01", "2026-11-02"],
  "failpoints": ["before_commit", "after_commit"],
  "retry": {"max_attempts": 4, "initial_interval_ms": 500, "backoff_coefficient": 3, "maximum_interval_ms": 2000},
  "invariants": {"must_hold": ["one_row_per_date"], "expected_violations": ["converges"]}
})";

// Parses kValid with one field replaced: `path` is a JSON pointer, `value` the new JSON text.
Result<Scenario> ParseWith(const std::string& pointer, const std::string& value) {
  nlohmann::json j = nlohmann::json::parse(kValid);
  j[nlohmann::json::json_pointer(pointer)] = nlohmann::json::parse(value);
  return ParseScenario(j.dump(), "s.json");
}

// Issue 17: patterns and temporary files' aliases in failpoints; "every syscall point" when
// the shim is on and nothing is listed.
TEST(ScenarioParser, AcceptsPatternsAndAliasesInFailpoints) {
  auto s = ParseWith(
      "/failpoints",
      R"(["rename:*:state.json", "write:state?.json*", "*", "fsync:<tmp1>", "open:sub/<tmp12>"])");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s.value().failpoints.size(), 5u);
  EXPECT_TRUE(
      ParseWith("/failpoints", R"(["write:<tmp*"])"));  // a pattern may match part of an alias
  for (const char* bad : {"write:<tmp>", "write:<x1>", "write:tmp1>", "write:<tmp1"}) {
    EXPECT_THAT(ErrorOf(ParseWith("/failpoints/0", std::string("\"") + bad + "\"")),
                HasSubstr("failpoints[0]: a failpoint name is"))
        << bad;
  }
  EXPECT_THAT(ErrorOf(ParseWith("/hold_points", R"(["fsync:*"])")),
              HasSubstr("hold_points[0]: a failpoint name is"));
}

TEST(ScenarioParser, TheShimWithoutFailpointsKillsAtEverySyscallPoint) {
  nlohmann::json j = nlohmann::json::parse(kValid);
  j.erase("failpoints");
  j["syscall_points"] = true;
  auto s = ParseScenario(j.dump(), "s.json");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s.value().failpoints, std::vector<std::string>{"*:*"});
  j["syscall_points"] = false;
  auto off = ParseScenario(j.dump(), "s.json");
  ASSERT_TRUE(off) << off.error().message;
  EXPECT_TRUE(off.value().failpoints.empty());
}

TEST(ScenarioParser, ReadsEveryField) {
  auto s = ParseScenario(kValid, "dir/s.json");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s.value().name, "settle/upsert");
  EXPECT_EQ(s.value().job.command.size(), 3u);
  EXPECT_EQ(s.value().dates, (std::vector<std::string>{"2026-11-01", "2026-11-02"}));
  EXPECT_EQ(s.value().retry.max_attempts, 4);
  EXPECT_EQ(s.value().retry.DelayBeforeAttempt(2), 500);
  EXPECT_EQ(s.value().retry.DelayBeforeAttempt(3), 1500);
  EXPECT_EQ(s.value().retry.DelayBeforeAttempt(4), 2000);  // capped
  EXPECT_EQ(s.value().expected_violations, std::vector<std::string>{"converges"});
  EXPECT_EQ(s.value().models, std::vector<PersistenceModel>{PersistenceModel::kProcess});
}

struct BadCase {
  std::string pointer, value, expected;
};

class ScenarioParserRejects : public ::testing::TestWithParam<BadCase> {};

TEST_P(ScenarioParserRejects, NamingFileAndField) {
  const BadCase& c = GetParam();
  std::string message = ErrorOf(ParseWith(c.pointer, c.value));
  EXPECT_THAT(message, HasSubstr("s.json: "));
  EXPECT_THAT(message, HasSubstr(c.expected));
}

INSTANTIATE_TEST_SUITE_P(
    Fields, ScenarioParserRejects,
    ::testing::Values(
        BadCase{"/nmae", "\"x\"", "nmae: unknown field"},
        BadCase{"/job/comand", "[]", "job.comand: unknown field"},
        BadCase{"/name", "3", "name: expected a string, got number 3"},
        BadCase{"/job/command", "[]", "job.command: must not be empty"},
        BadCase{"/job/command", "[\"\"]", "job.command[0]: the program must not be empty"},
        BadCase{"/job/command", "[\"{bindr}/x\"]", "job.command[0]: unknown placeholder {bindr}"},
        BadCase{"/job/timeout_ms", "-5", "job.timeout_ms: expected an integer from 1"},
        BadCase{"/dates/1", "\"2026-02-30\"", "dates[1]: expected a date YYYY-MM-DD"},
        BadCase{"/dates", "\"2026-11-01\"", "dates: expected a list of strings"},
        BadCase{"/retry/max_attempts", "-2",
                "retry.max_attempts: expected an integer from 1 to 100"},
        BadCase{"/retry/max_attempts", "1e300", "retry.max_attempts: expected an integer"},
        BadCase{"/retry/max_attempts", "2.5", "retry.max_attempts: expected an integer"},
        BadCase{"/retry/maximum_interval_ms", "10",
                "retry.maximum_interval_ms: must be >= initial"},
        BadCase{"/invariants/must_hold/0", "\"one_row\"",
                "invariants.must_hold[0]: unknown invariant 'one_row'"},
        BadCase{"/invariants/expected_violations/0", "\"one_row_per_date\"",
                "is also in must_hold"},
        BadCase{"/failpoints/0", "\"bad name\"", "failpoints[0]: a failpoint name is"},
        BadCase{"/failpoints/1", "\"before_commit\"",
                "failpoints[1]: 'before_commit' is listed twice"},
        BadCase{"/models", "[\"ext9\"]",
                "models[0]: unknown or unavailable persistence model 'ext9'"},
        BadCase{
            "/models", "[\"process\", \"pwer\"]",
            "models[1]: unknown or unavailable persistence model 'pwer' (did you mean 'power'?"},
        BadCase{"/syscall_points", "\"yes\"", "syscall_points: expected true or false"},
        BadCase{"/downstream", "{\"faults\": [\"explode\"]}",
                "downstream.faults[0]: unknown downstream fault"},
        BadCase{"/check/db", "\"../x.db\"", "check.db: expected a path relative to the sandbox"},
        BadCase{"/trials", "-1", "trials: expected an integer from 0"},
        BadCase{"/trials", "99999999999999999999999",
                "trials: expected an integer from 0 to 10000000, got number 9.99"},
        BadCase{"/name", "\"..\"", "name: must contain a letter or a digit"},
        BadCase{"/name", "\"a\\nb\"", "name: must not contain control characters"},
        BadCase{"/dates", "[\"2026-11-01\", \"2026-11-01\"]",
                "dates[1]: '2026-11-01' is listed twice"},
        BadCase{"/dates/0", "\"2026-1-011\"", "dates[0]: expected a date YYYY-MM-DD"},
        BadCase{"/models", "[\"power\", \"power\"]", "models[1]: 'power' is listed twice"},
        BadCase{"/job/command", "[\"echo\", \"a\\u0000b\"]",
                "job.command[1]: must not contain a NUL character"},
        BadCase{"/job/setup", "[\"\"]", "job.setup[0]: the program must not be empty"},
        BadCase{"/job/env", "{\"A=B\": \"1\"}", "job.env.A=B: an environment variable name"},
        BadCase{"/job/env", "{\"KILLPOINT_CTL\": \"x\"}",
                "job.env.KILLPOINT_CTL: KILLPOINT_* variables are set by the harness"},
        BadCase{"/job/env", "{\"X\": \"{nope}\"}", "job.env.X: unknown placeholder {nope}"},
        BadCase{"/job/max_file_bytes", "-1", "job.max_file_bytes: expected an integer from 0"},
        // catalogue: dedupe_by
        BadCase{"/downstream", "{\"dedupe\": true, \"dedupe_by\": \"body\"}",
                "downstream.dedupe_by: expected \"key\" or"},
        BadCase{"/downstream", "{\"dedupe_by\": \"key\"}",
                "downstream.dedupe_by: is set but dedupe is false"},
        // docs/faults.md
        BadCase{
            "/faults", "{\"pause\": {\"points\": [\"after_lock\"], \"probability\": 0.5}}",
            "faults.pause.points[0]: unknown point 'after_lock': it must be one of the scenario's "
            "failpoints or hold_points (before_commit, after_commit)"},
        BadCase{"/hold_points", "[\"before_commit\"]",
                "hold_points[0]: 'before_commit' is also in failpoints: a point is either killed "
                "at or only held"},
        BadCase{"/hold_points", "[\"after_lock\"]",
                "hold_points[0]: 'after_lock' is a point of neither faults.pause, faults.overlap "
                "nor faults.server"},
        BadCase{"/hold_points", "[\"after lock\"]", "hold_points[0]: a failpoint name is"},
        BadCase{"/hold_points", "\"after_lock\"", "hold_points: expected a list"},
        BadCase{"/faults",
                "{\"pause\": {\"points\": [\"before_commit\"], \"duration_ms\": -1, "
                "\"probability\": 0.5}}",
                "faults.pause.duration_ms: expected an integer from 1"},
        BadCase{"/faults", "{\"overlap\": {\"points\": [\"before_commit\"], \"probability\": 2}}",
                "faults.overlap.probability: expected a number from 0"},
        BadCase{"/faults", "{\"overlap\": {\"points\": [\"before_commit\"]}}",
                "faults.overlap.probability: is required"},
        BadCase{"/faults", "{\"downstream_burst\": {\"length\": -3, \"probability\": 0.2}}",
                "faults.downstream_burst.length: expected an integer from 1"},
        BadCase{"/faults",
                "{\"overlap\": {\"points\": [\"before_commit\"], \"probability\": 1, "
                "\"second_holds_at\": \"before_comit\"}}",
                "faults.overlap.second_holds_at: unknown point 'before_comit': it must be one of "
                "the scenario's failpoints or hold_points"},
        BadCase{"/faults",
                "{\"overlap\": {\"points\": [\"before_commit\"], \"probability\": 1, "
                "\"second_holds_at\": \"before_commit\"}}",
                "faults.overlap.second_holds_at: 'before_commit' is also a point of "
                "faults.overlap.points"},
        BadCase{"/faults",
                "{\"overlap\": {\"points\": [\"before_commit\"], \"probability\": 1, "
                "\"second_holds_at\": [\"after_commit\"]}}",
                "faults.overlap.second_holds_at: expected a string"},
        BadCase{"/faults", "{\"kill\": {}}", "faults.kill: unknown field"}));

// Issue 17: the settlement invariants' schema is the scenario's to name; no state file unless
// named.
TEST(ScenarioParser, ReadsTheSettlementSchemaAndNoDefaultStateFile) {
  auto plain = ParseScenario(kValid, "s.json");
  ASSERT_TRUE(plain) << plain.error().message;
  EXPECT_EQ(plain.value().check.state_file, "");
  EXPECT_EQ(plain.value().check.settlement, SettlementSchema{});
  EXPECT_EQ(plain.value().check.settlement.table, "daily_settlement");
  auto s = ParseWith("/check", R"({"state_file": "state.json", "settlement": {"table": "settlement",
      "date_column": "day", "amount_column": "total", "count_column": "", "key_column": ""}})");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s.value().check.state_file, "state.json");
  const SettlementSchema& t = s.value().check.settlement;
  EXPECT_EQ(t.table, "settlement");
  EXPECT_EQ(t.date_column, "day");
  EXPECT_EQ(t.amount_column, "total");
  EXPECT_EQ(t.count_column, "");
  EXPECT_EQ(t.key_column, "");
  EXPECT_EQ(t.source_table, "orders");
  EXPECT_THAT(ErrorOf(ParseWith("/check", R"({"settlement": {"date_column": ""}})")),
              HasSubstr("check.settlement.date_column: expected a table or column name"));
  EXPECT_THAT(ErrorOf(ParseWith("/check", R"({"settlement": {"colum": "x"}})")),
              HasSubstr("check.settlement.colum: unknown field"));
}

TEST(ScenarioParser, ReadsTheFaultsObject) {
  auto s = ParseWith(
      "/faults", R"({"pause": {"points": ["after_commit"], "duration_ms": 400, "probability": 0.5},
      "overlap": {"points": ["before_commit", "after_commit"], "probability": 0.25, "hold_ms": 3000},
      "downstream_burst": {"length": 3, "probability": 0.2}})");
  ASSERT_TRUE(s) << s.error().message;
  const FaultSpec& f = s.value().faults;
  EXPECT_EQ(f.pause, (PauseSpec{{"after_commit"}, 400, 0.5}));
  EXPECT_EQ(f.overlap, (OverlapSpec{{"before_commit", "after_commit"}, 0.25, 3000}));
  EXPECT_EQ(f.downstream_burst, (BurstSpec{3, 0.2}));
  // Without it, or with defaults: nothing is drawn.
  auto plain = ParseScenario(kValid, "s.json");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain.value().faults, FaultSpec{});
  auto defaults = ParseWith("/faults", R"({"pause": {"points": ["after_commit"], "probability": 1},
      "overlap": {"points": ["after_commit"], "probability": 1}})");
  ASSERT_TRUE(defaults) << defaults.error().message;
  EXPECT_EQ(defaults.value().faults.pause.duration_ms, 500);
  EXPECT_EQ(defaults.value().faults.overlap.hold_ms, 3000);
}

// hold_points: a pause or overlap point the plan never kills at (docs/faults.md).
TEST(ScenarioParser, ReadsHoldPointsThatOnlyFaultsUse) {
  nlohmann::json j = nlohmann::json::parse(kValid);
  j["hold_points"] = {"after_lock", "write:lock.db"};
  j["faults"] = nlohmann::json::parse(R"({"overlap": {"points": ["after_lock"], "probability": 1},
      "pause": {"points": ["write:lock.db", "before_commit"], "probability": 0.5}})");
  auto s = ParseScenario(j.dump(), "s.json");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s.value().hold_points, (std::vector<std::string>{"after_lock", "write:lock.db"}));
  EXPECT_EQ(s.value().failpoints, (std::vector<std::string>{"before_commit", "after_commit"}));
  EXPECT_EQ(s.value().faults.overlap.points, std::vector<std::string>{"after_lock"});
  EXPECT_TRUE(s.value().UsesShim());  // a syscall hold point needs the shim as a failpoint would
  j["hold_points"] = {"after_lock"};
  j["faults"].erase("pause");
  auto named = ParseScenario(j.dump(), "s.json");
  ASSERT_TRUE(named) << named.error().message;
  EXPECT_FALSE(named.value().UsesShim());
}

// docs/faults.md, "Three instances": the second's hold point is a hold point that only it uses.
TEST(ScenarioParser, ReadsTheSecondsHoldPoint) {
  nlohmann::json j = nlohmann::json::parse(kValid);
  j["hold_points"] = {"after_lock", "before_pay"};
  j["faults"] = nlohmann::json::parse(R"({"overlap": {"points": ["after_lock"], "probability": 1,
      "second_holds_at": "before_pay"}})");
  auto s = ParseScenario(j.dump(), "s.json");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s.value().faults.overlap.second_holds_at, "before_pay");
  j["faults"]["overlap"].erase("second_holds_at");
  EXPECT_THAT(ErrorOf(ParseScenario(j.dump(), "s.json")),
              HasSubstr("hold_points[1]: 'before_pay' is a point of neither"));
}

// Issue 18: writes_in_sandbox loads the shim for itself alone, whether it must hold or may
// break; a misspelling is shown the known names.
TEST(ScenarioParser, WritesInSandboxLoadsTheShimWithoutSyscallPoints) {
  auto plain = ParseWith("/invariants/must_hold", R"(["one_row_per_date"])");
  ASSERT_TRUE(plain) << plain.error().message;
  EXPECT_FALSE(plain.value().LoadsShim());
  for (const char* where : {"/invariants/must_hold", "/invariants/expected_violations"}) {
    auto s = ParseWith(where, R"(["writes_in_sandbox"])");
    ASSERT_TRUE(s) << s.error().message;
    EXPECT_TRUE(s.value().ChecksOutsideWrites());
    EXPECT_TRUE(s.value().LoadsShim());
    EXPECT_FALSE(s.value().UsesShim()) << "no syscall point becomes killable";
  }
  EXPECT_THAT(ErrorOf(ParseWith("/invariants/must_hold/0", "\"writes_in_sandbx\"")),
              HasSubstr("unknown invariant 'writes_in_sandbx' (known: "));
  EXPECT_THAT(ErrorOf(ParseWith("/invariants/must_hold/0", "\"writes_in_sandbx\"")),
              HasSubstr("writes_in_sandbox"));
}

// Retry strategies (docs/retry.md).
INSTANTIATE_TEST_SUITE_P(
    RetryStrategies, ScenarioParserRejects,
    ::testing::Values(
        BadCase{"/retry/jitter", "\"wobbly\"",
                "retry.jitter: unknown jitter 'wobbly' (known: none, full, equal, decorrelated)"},
        BadCase{"/retry/jitter", "1", "retry.jitter: expected a string"},
        BadCase{"/retry/non_retryable_exit_codes", "[3, 0]",
                "retry.non_retryable_exit_codes[1]: expected an integer from 1 to 255"},
        BadCase{"/retry/non_retryable_exit_codes", "3",
                "retry.non_retryable_exit_codes: expected a list of integers"},
        BadCase{"/retry/rate_limit", "{\"max_attempts\": 2}",
                "retry.rate_limit.window_ms: must be above 0 when max_attempts is set"},
        BadCase{"/retry/rate_limit", "{\"per\": 2}", "retry.rate_limit.per: unknown field"},
        BadCase{"/retry/circuit_breaker", "{\"failure_threshold\": 2}",
                "retry.circuit_breaker.open_ms: must be above 0"},
        BadCase{"/retry/circuit_breaker", "{\"open_ms\": -1}",
                "retry.circuit_breaker.open_ms: expected an integer from 0"},
        BadCase{"/job_retry", "{\"max_attempts\": 0}",
                "job_retry.max_attempts: expected an integer from 1 to 100"},
        BadCase{"/job_retry", "{\"initial_interval_ms\": 100, \"maximum_interval_ms\": 50}",
                "job_retry.maximum_interval_ms: must be >= initial"},
        BadCase{"/job_retry", "[]", "job_retry: expected an object"},
        BadCase{"/job_retry", "{\"reload_before_retry\": 1}",
                "job_retry.reload_before_retry: expected true or false"},
        BadCase{"/retry/reload_before_retry", "true", "retry.reload_before_retry: unknown field"}));

TEST(ScenarioParser, ReadsTheRetryStrategiesAndTheJobsPolicy) {
  nlohmann::json j = nlohmann::json::parse(kValid);
  j["retry"]["jitter"] = "decorrelated";
  j["retry"]["non_retryable_exit_codes"] = {3, 4};
  j["retry"]["rate_limit"] = {{"max_attempts", 2}, {"window_ms", 60000}};
  j["retry"]["circuit_breaker"] = {{"failure_threshold", 3}, {"open_ms", 5000}};
  j["job_retry"] = {{"max_attempts", 5},
                    {"initial_interval_ms", 20},
                    {"jitter", "equal"},
                    {"reload_before_retry", true}};
  auto s = ParseScenario(j.dump(), "s.json");
  ASSERT_TRUE(s) << s.error().message;
  const RetryPolicy& r = s.value().retry;
  EXPECT_EQ(r.jitter, Jitter::kDecorrelated);
  EXPECT_EQ(r.non_retryable_exit_codes, (std::vector<int>{3, 4}));
  EXPECT_EQ(r.rate_limit, (RateLimit{2, 60000}));
  EXPECT_EQ(r.circuit_breaker, (CircuitBreakerPolicy{3, 5000}));
  ASSERT_TRUE(s.value().job_retry);
  EXPECT_EQ(s.value().job_retry->max_attempts, 5);
  EXPECT_EQ(s.value().job_retry->initial_interval_ms, 20);
  EXPECT_EQ(s.value().job_retry->jitter, Jitter::kEqual);
  EXPECT_TRUE(s.value().job_retry->reload_before_retry);
}

TEST(ScenarioParser, AnOldRetryBlockReadsWithoutStrategies) {
  auto s = ParseScenario(kValid, "s.json");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s.value().retry.jitter, Jitter::kNone);
  EXPECT_TRUE(s.value().retry.non_retryable_exit_codes.empty());
  EXPECT_EQ(s.value().retry.rate_limit, RateLimit{});
  EXPECT_EQ(s.value().retry.circuit_breaker, CircuitBreakerPolicy{});
  EXPECT_FALSE(s.value().job_retry);
}

TEST(ScenarioParser, RejectsAMissingJob) {
  nlohmann::json j = nlohmann::json::parse(kValid);
  j.erase("job");
  EXPECT_THAT(ErrorOf(ParseScenario(j.dump(), "s.json")),
              HasSubstr("s.json: job.command: is required"));
}

TEST(ScenarioParser, RejectsTruncatedJsonWithItsPositionAndField) {
  std::string text = kValid;
  std::string message = ErrorOf(ParseScenario(text.substr(0, 60), "s.json"));
  EXPECT_THAT(message,
              HasSubstr("s.json: job.command[0]: not valid JSON: parse error at line 3, column"));
}

TEST(ScenarioParser, RejectsInvalidUtf8PrintingItEscaped) {
  std::string text = std::string(kValid);
  text.replace(text.find("settle/upsert"), 6, "\xff\xfe");
  std::string message = ErrorOf(ParseScenario(text, "s.json"));
  EXPECT_THAT(message, HasSubstr("s.json: name: not valid JSON"));
  EXPECT_THAT(message, HasSubstr("\\xff"));
  EXPECT_EQ(message.find('\xff'), std::string::npos);
}

// nlohmann_json throws out_of_range (not parse_error) for 1e400: it escaped the parser's catch
// and killed the process with std::terminate.
TEST(ScenarioParser, RejectsANumberBeyondADoubleInsteadOfCrashing) {
  nlohmann::json j = nlohmann::json::parse(kValid);
  std::string text = j.dump();
  text.insert(text.size() - 1, ",\"trials\":1e400");
  EXPECT_THAT(ErrorOf(ParseScenario(text, "s.json")),
              HasSubstr("s.json: trials: number overflow parsing '1e400'"));
  text = kValid;
  text.replace(text.find("\"max_attempts\": 4"), 17, "\"max_attempts\": -1e999");
  EXPECT_THAT(ErrorOf(ParseScenario(text, "s.json")),
              HasSubstr("s.json: retry.max_attempts: number overflow"));
}

TEST(ScenarioParser, RejectsADuplicateKeyNamingIt) {
  std::string text = kValid;
  text.insert(text.find("\"dates\""), "\"name\": \"again\", ");
  EXPECT_THAT(ErrorOf(ParseScenario(text, "s.json")),
              HasSubstr("s.json: name: listed twice in one object"));
  text = kValid;
  text.insert(text.find("\"max_attempts\""), "\"max_attempts\": 1, ");
  EXPECT_THAT(ErrorOf(ParseScenario(text, "s.json")),
              HasSubstr("s.json: retry.max_attempts: listed twice"));
}

TEST(ScenarioParser, RejectsDeepNestingWithoutRecursing) {
  std::string text = "{\"name\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
  EXPECT_THAT(ErrorOf(ParseScenario(text, "s.json")), HasSubstr("s.json: name[0][0]"));
  EXPECT_THAT(ErrorOf(ParseScenario(text, "s.json")), HasSubstr("nested deeper than 32 levels"));
}

// Braces that are no placeholder name (lower-case letters and _) are the job's own: a shell's
// `printf '{}'`, JSON in an argument (issue 33: a setup with `printf '{}' > state.json`).
TEST(ScenarioParser, LeavesBracesThatAreNoPlaceholderAlone) {
  auto s = ParseWith("/job/command",
                     R"(["/bin/sh", "-c", "printf '{}' > s.json; echo '{\"a\": 1}' {workdir}"])");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_THAT(ErrorOf(ParseWith("/job/command", R"(["x", "{work_dir}"])")),
              HasSubstr("unknown placeholder {work_dir}"));
}

// std::regex recursed once per character: a 300 kB failpoint name overflowed the stack.
TEST(ScenarioParser, RejectsHugeStringsWithoutRecursing) {
  EXPECT_THAT(ErrorOf(ParseWith("/failpoints/0", "\"" + std::string(300000, 'a') + " \"")),
              HasSubstr("failpoints[0]: a failpoint name is"));
  EXPECT_THAT(ErrorOf(ParseWith("/job/command/1", "\"{" + std::string(300000, 'b') + "}\"")),
              HasSubstr("job.command[1]: unknown placeholder {bbbb"));
  EXPECT_THAT(ErrorOf(ParseWith("/dates/0", "\"" + std::string(300000, '1') + "\"")),
              HasSubstr("dates[0]: expected a date"));
  EXPECT_LE(ErrorOf(ParseWith("/dates/0", "\"" + std::string(300000, '1') + "\"")).size(), 1003u);
}

TEST(ScenarioParser, EveryErrorIsOneLine) {
  for (const auto& m :
       {ErrorOf(ParseWith("/nm\nae", "1")), ErrorOf(ParseScenario("{\"a\n", "x\ny.json")),
        ErrorOf(ParseWith("/dates/0", "\"2026\\n\""))}) {
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    EXPECT_THAT(m, HasSubstr("\\x0a"));
  }
}

// Found by fuzz/fuzz_scenario.cc (build-fuzz/artifacts/scenario-crash-d758dae...): a name of
// control bytes made a 4000-byte message.
TEST(ScenarioParser, EveryErrorIsShortWhateverItQuotes) {
  std::string text = "{\"name\": \"fi" + std::string(150, '\x7f') + "\"}";
  std::string m = ErrorOf(ParseScenario(text, "s.json"));
  EXPECT_THAT(m, HasSubstr("s.json: name: must not contain control characters"));
  text = "{\"name\": \"x\", \"" + std::string(3000, '\x01') + "\": 1}";
  m = ErrorOf(ParseScenario(text, "s.json"));
  EXPECT_THAT(m, HasSubstr("s.json: (root): not valid JSON"));
  EXPECT_LE(m.size(), 1003u);
  nlohmann::json j = nlohmann::json::parse(kValid);
  j[std::string(3000, '\x7f')] = 1;
  m = ErrorOf(ParseScenario(j.dump(), "s.json"));
  EXPECT_THAT(m, HasSubstr("s.json: \\x7f\\x7f"));
  EXPECT_LE(m.size(), 1003u);
}

TEST(ScenarioParser, RejectsATooLargeText) {
  std::string text = kValid;
  text.insert(text.size() - 1,
              ", \"description\": \"" + std::string(kMaxScenarioBytes, 'd') + "\"");
  EXPECT_THAT(ErrorOf(ParseScenario(text, "s.json")), HasSubstr("s.json: (root): "));
}

TEST(ScenarioParser, TheFileSizeLimitDefaultsToOneGibibyte) {
  auto s = ParseScenario(kValid, "s.json");
  ASSERT_TRUE(s);
  EXPECT_EQ(s.value().job.max_file_bytes, int64_t{1} << 30);
  auto t = ParseWith("/job/max_file_bytes", "0");
  ASSERT_TRUE(t);
  EXPECT_EQ(t.value().job.max_file_bytes, 0);
}

TEST(ScenarioParser, RejectsARootThatIsNotAnObject) {
  EXPECT_THAT(ErrorOf(ParseScenario("[1,2]", "s.json")),
              HasSubstr("s.json: (root): expected an object"));
}

TEST(ScenarioParser, RejectsAFifoInsteadOfBlockingOnIt) {
  fs::path fifo = fs::temp_directory_path() / ("kp-scenario-fifo-" + std::to_string(::getpid()));
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto r = LoadScenario(fifo);
  fs::remove(fifo);
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr(": is not a regular file"));
}

TEST(ScenarioParser, RejectsADirectoryGivenAsAFile) {
  auto r = LoadScenario(KILLPOINT_SOURCE_DIR "/scenarios");
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("is a directory"));
  EXPECT_EQ(r.error().kind, ErrorKind::kBadInput);
}

TEST(ScenarioParser, RejectsDuplicateNamesAcrossFiles) {
  fs::path dir = fs::temp_directory_path() / ("kp-scenario-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (const char* f : {"a.json", "b.json"}) std::ofstream(dir / f) << kValid;
  auto r = LoadScenarios({dir});
  fs::remove_all(dir);
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("b.json: name: 'settle/upsert' is already used"));
}

// A symlink loop in a scenarios folder is a bad scenario, named, not an abort (an uncaught
// filesystem_error) or "no such file".
TEST(ScenarioParser, ASymlinkLoopIsNamedAsUnreadable) {
  fs::path dir = fs::temp_directory_path() / ("kp-scenario-loop-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "a.json") << kValid;
  fs::create_symlink("loop.json", dir / "loop.json");
  auto folder = LoadScenarios({dir});
  auto direct = LoadScenarios({dir / "loop.json"});
  fs::remove_all(dir);
  for (const auto& r : {folder, direct}) {
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().kind, ErrorKind::kBadInput);
    EXPECT_THAT(r.error().message,
                HasSubstr("loop.json: cannot be read: Too many levels of symbolic links"));
  }
}

// Names in other scripts are names; two names that would share an output folder are refused.
TEST(ScenarioParser, NamesBeyondAsciiAndOneFolderAName) {
  fs::path dir = fs::temp_directory_path() / ("kp-scenario-names-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto named = [&](const std::string& file, const std::string& name) {
    nlohmann::json j = nlohmann::json::parse(kValid);
    j["name"] = name;
    std::ofstream(dir / file) << j.dump();
    return dir / file;
  };
  auto japanese = LoadScenarios({named("a.json", "日本語")});
  auto invisible = LoadScenarios({named("b.json", "\u200b\u202e")});
  auto clash = LoadScenarios({named("c.json", "settle up"), named("d.json", "settle:up")});
  fs::remove_all(dir);
  ASSERT_TRUE(japanese) << japanese.error().message;
  ASSERT_FALSE(invisible);
  EXPECT_THAT(invisible.error().message,
              HasSubstr("name: must contain a letter or a digit, got '\\u200b\\u202e'"));
  ASSERT_FALSE(clash);
  EXPECT_THAT(
      clash.error().message,
      HasSubstr(
          "d.json: name: 'settle:up' and 'settle up' of another scenario of this run share the "
          "output folder 'settle-up'"));
}

TEST(ScenarioParser, LoadsEveryBundledScenario) {
  auto r = LoadScenarios({KILLPOINT_SOURCE_DIR "/scenarios"});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_GE(r.value().size(), 10u);
}

}  // namespace
}  // namespace killpoint
