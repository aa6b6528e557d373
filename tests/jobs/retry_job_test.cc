// kp-retry end to end: the real binary, a real state file and the fake downstream over HTTP.
// Backoffs are a few milliseconds; nothing here depends on how long anything takes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fake_downstream.h"
#include "subprocess.h"
#include "temp_dir.h"

namespace killpoint::testing {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr const char* kDate = "2026-11-05";
constexpr const char* kKey = "publish-2026-11-05";

class KpRetryTest : public ::testing::Test {
 protected:
  ProcessResult Retry(std::vector<std::string> args, const FakeDownstream& downstream) const {
    SpawnSpec spec{{std::string(KILLPOINT_BIN_DIR) + "/kp-retry"},
                   {{"KILLPOINT_WORKDIR", dir_.path()},
                    {"KILLPOINT_BIZ_DATE", kDate},
                    {"KILLPOINT_DOWNSTREAM", downstream.url()}},
                   dir_.path()};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    return RunProcess(spec);
  }
  static std::vector<std::string> Paths(const FakeDownstream& d) {
    std::vector<std::string> paths;
    for (const auto& r : d.requests()) paths.push_back(r.method_and_path);
    return paths;
  }
  static std::vector<json> Reports(const FakeDownstream& d) {
    std::vector<json> out;
    for (const auto& r : d.requests()) {
      if (r.method_and_path == "POST /retry") out.push_back(r.body);
    }
    return out;
  }

  // Backoff 1, 2, 4 ... ms capped at 3 ms; `max_attempts` attempts; then `extra`.
  static std::vector<std::string> Policy(const std::string& max_attempts,
                                         std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"--max-attempts", max_attempts, "--initial-ms", "1",
                                     "--coefficient",  "2",          "--maximum-ms", "3",
                                     "--timeout-ms",   "2000"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }

  TempDir dir_;
  const std::vector<std::string> policy_ = Policy("4");
};

TEST_F(KpRetryTest, ChecksBeforePublishingOnceAndRecordsDone) {
  FakeDownstream downstream;
  ProcessResult r = Retry(policy_, downstream);
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_THAT(Paths(downstream), ElementsAre("GET /deliveries", "POST /publish"));
  EXPECT_EQ(downstream.deliveries(kKey), 1);
  EXPECT_THAT(ReadFileOrEmpty(dir_.File("publish-state.json")),
              HasSubstr("\"2026-11-05\": \"done\""));
}

TEST_F(KpRetryTest, ReconcilesWhenTheDownstreamAlreadyHasTheDelivery) {
  FakeDownstream downstream;
  downstream.AddDelivery(kKey);
  ProcessResult r = Retry(policy_, downstream);
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_THAT(r.out, HasSubstr("reconciled 2026-11-05"));
  EXPECT_THAT(Paths(downstream), ElementsAre("GET /deliveries"));
}

TEST_F(KpRetryTest, CorrectBacksOffUpToTheCapReloadsAndReportsEveryRetry) {
  FakeDownstream downstream(FakeDownstream::Mode::kFail);
  ProcessResult r = Retry(policy_, downstream);
  EXPECT_EQ(r.exit_code, 1) << r;
  EXPECT_THAT(Paths(downstream),
              ElementsAre("GET /deliveries", "POST /retry", "GET /deliveries", "POST /retry",
                          "GET /deliveries", "POST /retry", "GET /deliveries"));
  std::vector<json> reports = Reports(downstream);
  ASSERT_EQ(reports.size(), 3u);
  std::vector<int64_t> backoffs;
  for (size_t i = 0; i < reports.size(); ++i) {
    EXPECT_EQ(reports[i]["key"], kKey);
    EXPECT_EQ(reports[i]["attempt"], static_cast<int>(i) + 2);
    EXPECT_EQ(reports[i]["breaker"], "closed");
    EXPECT_GE(reports[i]["delay_ms"].get<int64_t>(), reports[i]["backoff_ms"].get<int64_t>());
    backoffs.push_back(reports[i]["backoff_ms"]);
  }
  EXPECT_THAT(backoffs, ElementsAre(1, 2, 3));  // 1, 2, 4 capped at 3
}

TEST_F(KpRetryTest, NoReloadRetriesThePublishBlindly) {
  FakeDownstream downstream(FakeDownstream::Mode::kFail);
  ProcessResult r = Retry(Policy("3", {"--variant", "no-reload"}), downstream);
  EXPECT_EQ(r.exit_code, 1) << r;
  EXPECT_THAT(Paths(downstream), ElementsAre("GET /deliveries", "POST /retry", "POST /publish",
                                             "POST /retry", "POST /publish"));
}

TEST_F(KpRetryTest, TightLoopRetriesWithoutBackoffFarBeyondThePolicy) {
  FakeDownstream downstream(FakeDownstream::Mode::kFail);
  ProcessResult r = Retry(Policy("4", {"--variant", "tight-loop"}), downstream);
  EXPECT_EQ(r.exit_code, 1) << r;
  std::vector<json> reports = Reports(downstream);
  ASSERT_EQ(reports.size(), 999u);
  EXPECT_EQ(reports[0]["backoff_ms"], 0);
  EXPECT_EQ(reports.back()["attempt"], 1000);
}

TEST_F(KpRetryTest, BreakerOpensAndTheProbeIsReportedHalfOpen) {
  FakeDownstream downstream(FakeDownstream::Mode::kFail);
  ProcessResult r =
      Retry(Policy("3", {"--breaker-threshold", "2", "--breaker-open-ms", "5"}), downstream);
  EXPECT_EQ(r.exit_code, 1) << r;
  std::vector<json> reports = Reports(downstream);
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0]["breaker"], "closed");
  EXPECT_EQ(reports[1]["breaker"], "half_open");
  EXPECT_GE(reports[1]["delay_ms"].get<int64_t>(), 5);
}

TEST_F(KpRetryTest, BadUsageExitsTwoNamingTheFlag) {
  FakeDownstream downstream;
  for (std::vector<std::string> args :
       std::vector<std::vector<std::string>>{{"--variant", "sometimes"},
                                             {"--jitter", "wobbly"},
                                             {"--initial-ms", "10", "--maximum-ms", "5"}}) {
    ProcessResult r = Retry(args, downstream);
    EXPECT_EQ(r.exit_code, 2) << r;
    EXPECT_THAT(r.err, HasSubstr(args[0].substr(0, 5))) << r;
  }
  EXPECT_TRUE(downstream.requests().empty());
}

}  // namespace
}  // namespace killpoint::testing
