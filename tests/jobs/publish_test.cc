// kp-publish end to end: the real binary, a real state file, a fake downstream over HTTP and,
// for crashes, a fake controller that kills the job at a failpoint.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fake_controller.h"
#include "fake_downstream.h"
#include "subprocess.h"
#include "temp_dir.h"

namespace killpoint::testing {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr const char* kDate = "2026-11-05";
constexpr const char* kKey = "publish-2026-11-05";

class KpPublishTest : public ::testing::Test {
 protected:
  // kp-publish for kDate with args, the state file and the downstream given by the contract's
  // environment (plus extra_env).
  ProcessResult Publish(std::vector<std::string> args, const FakeDownstream& downstream,
                        std::map<std::string, std::string> extra_env = {}) const {
    extra_env.insert({{"KILLPOINT_WORKDIR", dir_.path()},
                      {"KILLPOINT_BIZ_DATE", kDate},
                      {"KILLPOINT_DOWNSTREAM", downstream.url()}});
    SpawnSpec spec{{std::string(KILLPOINT_BIN_DIR) + "/kp-publish"}, extra_env, dir_.path()};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    return RunProcess(spec);
  }

  json State() const { return json::parse(ReadFileOrEmpty(state_path_)); }
  void WriteState(const std::string& date_state) const {
    WriteFile(state_path_, StateWith(date_state).dump());
  }
  static json StateWith(const std::string& date_state) {
    return json{{"version", 1}, {"dates", {{kDate, date_state}}}};
  }
  static std::vector<std::string> Paths(const FakeDownstream& downstream) {
    std::vector<std::string> paths;
    for (const auto& request : downstream.requests()) paths.push_back(request.method_and_path);
    return paths;
  }

  TempDir dir_;
  std::string state_path_ = dir_.File("publish-state.json");
};

const std::vector<std::string> kExecuteThenMark = {"--order", "execute-then-mark", "--save",
                                                   "atomic"};

TEST_F(KpPublishTest, ExecuteThenMarkPublishesOnceAndRecordsDone) {
  FakeDownstream downstream;
  ProcessResult first = Publish(kExecuteThenMark, downstream);
  ASSERT_EQ(first.exit_code, 0) << first;
  EXPECT_THAT(first.out, HasSubstr("published 2026-11-05 key=publish-2026-11-05"));
  EXPECT_EQ(State(), StateWith("done"));
  std::vector<FakeDownstream::Request> requests = downstream.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method_and_path, "POST /publish");
  EXPECT_EQ(requests[0].idempotency_key, kKey);
  EXPECT_EQ(requests[0].body, (json{{"key", kKey},
                                    {"biz_date", kDate},
                                    {"payload", {{"text", "settlement for 2026-11-05"}}}}));

  ProcessResult second = Publish(kExecuteThenMark, downstream);
  ASSERT_EQ(second.exit_code, 0) << second;
  EXPECT_THAT(second.out, HasSubstr("already done"));
  EXPECT_EQ(downstream.requests().size(), 1u);
  EXPECT_EQ(State(), StateWith("done"));
}

TEST_F(KpPublishTest, CorruptStateFileStopsTheJobWithExit3) {
  FakeDownstream downstream;
  WriteFile(state_path_, "{\"version\":1,\"dates\":{\"2026-11-05\":\"do");
  ProcessResult result = Publish(kExecuteThenMark, downstream);
  EXPECT_EQ(result.exit_code, 3) << result;
  EXPECT_THAT(result.err, HasSubstr("state file " + state_path_ + " is unreadable: "));
  EXPECT_THAT(downstream.requests(), IsEmpty());
}

TEST_F(KpPublishTest, WrongShapeStateFileStopsTheJobWithExit3) {
  FakeDownstream downstream;
  for (const char* text : {"", "[]", "{\"version\":1,\"dates\":[]}", "{\"version\":2,\"dates\":{}}",
                           "{\"version\":1,\"dates\":{\"2026-11-05\":\"maybe\"}}"}) {
    WriteFile(state_path_, text);
    ProcessResult result = Publish(kExecuteThenMark, downstream);
    EXPECT_EQ(result.exit_code, 3) << text << " " << result;
    EXPECT_THAT(result.err, HasSubstr("is unreadable: ")) << text;
  }
  EXPECT_THAT(downstream.requests(), IsEmpty());
}

TEST_F(KpPublishTest, MissingBizDateIsAUsageError) {
  FakeDownstream downstream;
  ProcessResult result = Publish(kExecuteThenMark, downstream, {{"KILLPOINT_BIZ_DATE", ""}});
  EXPECT_EQ(result.exit_code, 2) << result;
  EXPECT_THAT(result.err, HasSubstr("no business date"));
}

TEST_F(KpPublishTest, BadDownstreamUrlIsAUsageError) {
  FakeDownstream downstream;
  ProcessResult result =
      Publish(kExecuteThenMark, downstream, {{"KILLPOINT_DOWNSTREAM", "https://example.com/x"}});
  EXPECT_EQ(result.exit_code, 2) << result;
  EXPECT_THAT(result.err, HasSubstr("bad downstream URL"));
}

TEST_F(KpPublishTest, NoQueryOutsideIntentDoneIsAUsageError) {
  FakeDownstream downstream;
  std::vector<std::string> args = kExecuteThenMark;
  args.push_back("--no-query");
  EXPECT_EQ(Publish(args, downstream).exit_code, 2);
}

TEST_F(KpPublishTest, DownstreamFailureIsRetryableAndRecordsNothing) {
  FakeDownstream downstream(FakeDownstream::Mode::kFail);
  ProcessResult result = Publish(kExecuteThenMark, downstream);
  EXPECT_EQ(result.exit_code, 1) << result;
  EXPECT_THAT(result.err, HasSubstr("HTTP 500"));
  EXPECT_EQ(ReadFileOrEmpty(state_path_), "");
}

TEST_F(KpPublishTest, DownstreamTimeoutIsRetryable) {
  FakeDownstream downstream(FakeDownstream::Mode::kHang);
  std::vector<std::string> args = kExecuteThenMark;
  args.insert(args.end(), {"--timeout-ms", "200"});
  ProcessResult result = Publish(args, downstream);
  EXPECT_EQ(result.exit_code, 1) << result;
  EXPECT_THAT(result.err, HasSubstr("/publish failed"));
}

TEST_F(KpPublishTest, IntentDoneWithNoQueryAlertsOnAPendingIntent) {
  FakeDownstream downstream;
  WriteState("pending");
  ProcessResult result =
      Publish({"--order", "intent-done", "--save", "atomic", "--no-query"}, downstream);
  ASSERT_EQ(result.exit_code, 0) << result;
  std::vector<FakeDownstream::Request> requests = downstream.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method_and_path, "POST /alert");
  EXPECT_EQ(requests[0].body["key"], kKey);
  EXPECT_THAT(requests[0].body["reason"].get<std::string>(), HasSubstr("a human must check"));
  EXPECT_EQ(State(), StateWith("alerted"));
}

TEST_F(KpPublishTest, IntentDoneReconcilesAPendingIntentThatWasDelivered) {
  FakeDownstream downstream;
  downstream.AddDelivery(kKey);
  WriteState("pending");
  ProcessResult result = Publish({"--order", "intent-done", "--save", "atomic"}, downstream);
  ASSERT_EQ(result.exit_code, 0) << result;
  EXPECT_THAT(Paths(downstream), ElementsAre("GET /deliveries"));
  EXPECT_EQ(State(), StateWith("done"));
}

TEST_F(KpPublishTest, IntentDonePublishesAPendingIntentThatWasNotDelivered) {
  FakeDownstream downstream;
  WriteState("pending");
  ProcessResult result = Publish({"--order", "intent-done", "--save", "atomic"}, downstream);
  ASSERT_EQ(result.exit_code, 0) << result;
  EXPECT_THAT(Paths(downstream), ElementsAre("GET /deliveries", "POST /publish"));
  EXPECT_EQ(downstream.deliveries(kKey), 1);
  EXPECT_EQ(State(), StateWith("done"));
}

TEST_F(KpPublishTest, IntentDoneHitsItsFailpointsInOrder) {
  FakeDownstream downstream;
  FakeController controller;
  ProcessResult result = Publish({"--order", "intent-done", "--save", "atomic"}, downstream,
                                 {{"KILLPOINT_CTL", controller.address()}});
  ASSERT_EQ(result.exit_code, 0) << result;
  EXPECT_THAT(
      controller.hits(),
      ElementsAre("before_write", "mid_write", "before_fsync", "before_rename", "after_rename",
                  "after_intent", "before_publish", "after_publish", "before_write", "mid_write",
                  "before_fsync", "before_rename", "after_rename"));
}

TEST_F(KpPublishTest, InPlaceSaveHasNoRenamePoints) {
  FakeDownstream downstream;
  FakeController controller;
  ProcessResult result = Publish({"--order", "mark-then-execute", "--save", "in-place"}, downstream,
                                 {{"KILLPOINT_CTL", controller.address()}});
  ASSERT_EQ(result.exit_code, 0) << result;
  EXPECT_THAT(controller.hits(), ElementsAre("before_write", "mid_write", "before_fsync",
                                             "before_publish", "after_publish"));
}

TEST_F(KpPublishTest, KillMidInPlaceWriteLeavesAnUnreadableState) {
  FakeDownstream downstream;
  {
    FakeController controller("mid_write");
    ProcessResult killed = Publish({"--order", "execute-then-mark", "--save", "in-place"},
                                   downstream, {{"KILLPOINT_CTL", controller.address()}});
    ASSERT_EQ(killed.term_signal, SIGKILL) << killed;
  }
  ProcessResult rerun = Publish(kExecuteThenMark, downstream);
  EXPECT_EQ(rerun.exit_code, 3) << rerun;
}

TEST_F(KpPublishTest, KillMidAtomicWriteLeavesTheOldStateReadable) {
  FakeDownstream downstream;
  {
    FakeController controller("mid_write");
    ProcessResult killed =
        Publish(kExecuteThenMark, downstream, {{"KILLPOINT_CTL", controller.address()}});
    ASSERT_EQ(killed.term_signal, SIGKILL) << killed;
  }
  ProcessResult rerun = Publish(kExecuteThenMark, downstream);
  ASSERT_EQ(rerun.exit_code, 0) << rerun;
  EXPECT_THAT(rerun.out, HasSubstr("deduplicated=true"));
  EXPECT_EQ(downstream.deliveries(kKey), 1);
  EXPECT_EQ(State(), StateWith("done"));
}

TEST_F(KpPublishTest, MarkThenExecuteKilledBeforePublishLosesTheDate) {
  FakeDownstream downstream;
  {
    FakeController controller("before_publish");
    ProcessResult killed = Publish({"--order", "mark-then-execute", "--save", "atomic"}, downstream,
                                   {{"KILLPOINT_CTL", controller.address()}});
    ASSERT_EQ(killed.term_signal, SIGKILL) << killed;
  }
  ProcessResult rerun = Publish({"--order", "mark-then-execute", "--save", "atomic"}, downstream);
  ASSERT_EQ(rerun.exit_code, 0) << rerun;
  EXPECT_THAT(rerun.out, HasSubstr("already done"));
  EXPECT_EQ(downstream.deliveries(kKey), 0);
}

}  // namespace
}  // namespace killpoint::testing
