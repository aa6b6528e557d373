// jobs/python/failpoint_job.py run as a real process, without and with a fake controller.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <string>

#include "fake_controller.h"
#include "subprocess.h"
#include "temp_dir.h"

namespace killpoint::testing {
namespace {

using ::testing::ElementsAre;

class PythonJobTest : public ::testing::Test {
 protected:
  ProcessResult RunJob(const std::string& attempt, const std::string& ctl = "") const {
    SpawnSpec spec{{std::string(KILLPOINT_SOURCE_DIR) + "/jobs/python/failpoint_job.py"},
                   {{"KILLPOINT_WORKDIR", dir_.path()},
                    {"KILLPOINT_BIZ_DATE", "2026-11-05"},
                    {"KILLPOINT_ATTEMPT", attempt}},
                   dir_.path()};
    if (!ctl.empty()) spec.env["KILLPOINT_CTL"] = ctl;
    return RunProcess(spec);
  }

  TempDir dir_;
};

TEST_F(PythonJobTest, WithoutControllerLogsAndMarksDone) {
  ProcessResult result = RunJob("1");
  ASSERT_EQ(result.exit_code, 0) << result;
  EXPECT_EQ(ReadFileOrEmpty(dir_.File("python-job.log")), "started 1\n");
  EXPECT_EQ(ReadFileOrEmpty(dir_.File("python-job.done")), "2026-11-05\n");
}

TEST_F(PythonJobTest, KilledAtItsPointItLeavesNoMarkAndTheRetryFinishes) {
  {
    FakeController controller("py_before_mark");
    ProcessResult killed = RunJob("1", controller.address());
    ASSERT_EQ(killed.term_signal, SIGKILL) << killed;
    EXPECT_THAT(controller.hits(), ElementsAre("py_before_mark"));
  }
  EXPECT_FALSE(std::filesystem::exists(dir_.File("python-job.done")));
  FakeController controller;
  ProcessResult retry = RunJob("2", controller.address());
  ASSERT_EQ(retry.exit_code, 0) << retry;
  EXPECT_EQ(ReadFileOrEmpty(dir_.File("python-job.log")), "started 1\nstarted 2\n");
  EXPECT_EQ(ReadFileOrEmpty(dir_.File("python-job.done")), "2026-11-05\n");
}

TEST_F(PythonJobTest, BrokenChannelExits70) {
  std::string address;
  {
    LoopbackListener closed;
    address = closed.address();
  }
  ProcessResult result = RunJob("1", address);
  EXPECT_EQ(result.exit_code, 70) << result;
  EXPECT_THAT(result.err, ::testing::HasSubstr("killpoint failpoint:"));
}

}  // namespace
}  // namespace killpoint::testing
