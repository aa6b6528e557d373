// The C++ failpoint client against a listener that plays the harness, through a real child
// process (kp-failpoint-probe, see failpoint_probe.cc).
#include <gtest/gtest.h>
#include <signal.h>

#include <string>
#include <vector>

#include "loopback.h"
#include "subprocess.h"
#include "temp_dir.h"

namespace killpoint::testing {
namespace {

constexpr std::chrono::milliseconds kNoWait{0};

class FailpointClientTest : public ::testing::Test {
 protected:
  // The probe running steps, with KILLPOINT_CTL=ctl unless ctl is nullptr.
  SpawnSpec Probe(std::vector<std::string> steps, const char* ctl) const {
    SpawnSpec spec{{KP_FAILPOINT_PROBE}, {}, dir_.path()};
    spec.argv.insert(spec.argv.end(), steps.begin(), steps.end());
    if (ctl != nullptr) spec.env["KILLPOINT_CTL"] = ctl;
    return spec;
  }
  SpawnSpec Probe(std::vector<std::string> steps, const LoopbackListener& listener) const {
    return Probe(std::move(steps), listener.address().c_str());
  }

  static std::string Hit(const std::string& name, pid_t pid) {
    return "HIT " + name + " " + std::to_string(pid);
  }

  TempDir dir_;
};

TEST_F(FailpointClientTest, WithoutControllerEveryPointIsANoOp) {
  ProcessResult result = RunProcess(Probe({"x", "y"}, nullptr));
  EXPECT_EQ(result.exit_code, 0) << result;
  EXPECT_EQ(result.out, "enabled=0\nafter x\nafter y\n");
}

TEST_F(FailpointClientTest, EmptyControllerVariableIsANoOp) {
  ProcessResult result = RunProcess(Probe({"x"}, ""));
  EXPECT_EQ(result.exit_code, 0) << result;
  EXPECT_EQ(result.out, "enabled=0\nafter x\n");
}

TEST_F(FailpointClientTest, SendsHitLineAndGoesOnAfterContinue) {
  LoopbackListener listener;
  Subprocess child(Probe({"x"}, listener));
  std::optional<Connection> connection = listener.Accept();
  ASSERT_TRUE(connection);
  EXPECT_EQ(connection->ReadLine(), Hit("x", child.pid()));
  ASSERT_TRUE(connection->Send("CONTINUE\n"));
  ProcessResult result = child.Wait();
  EXPECT_EQ(result.exit_code, 0) << result;
  EXPECT_EQ(result.out, "enabled=1\nafter x\n");
  EXPECT_TRUE(connection->WaitForEof()) << "the client sent more than one line";
}

TEST_F(FailpointClientTest, KillBeforeTheAnswerMeansThePointNeverReturns) {
  LoopbackListener listener;
  Subprocess child(Probe({"x"}, listener));
  std::optional<Connection> connection = listener.Accept();
  ASSERT_TRUE(connection);
  ASSERT_EQ(connection->ReadLine(), Hit("x", child.pid()));
  ASSERT_EQ(::kill(-child.pid(), SIGKILL), 0);
  ProcessResult result = child.Wait();
  EXPECT_EQ(result.term_signal, SIGKILL) << result;
  EXPECT_EQ(result.out, "enabled=1\n");
}

TEST_F(FailpointClientTest, ReusesOneConnectionForManyHits) {
  LoopbackListener listener;
  Subprocess child(Probe({"a", "b", "c"}, listener));
  std::optional<Connection> connection = listener.Accept();
  ASSERT_TRUE(connection);
  for (const char* name : {"a", "b", "c"}) {
    ASSERT_EQ(connection->ReadLine(), Hit(name, child.pid()));
    ASSERT_TRUE(connection->Send("CONTINUE\n"));
  }
  ProcessResult result = child.Wait();
  EXPECT_EQ(result.exit_code, 0) << result;
  EXPECT_EQ(result.out, "enabled=1\nafter a\nafter b\nafter c\n");
  EXPECT_FALSE(listener.Accept(kNoWait)) << "the client opened a second connection";
}

TEST_F(FailpointClientTest, ThreadsShareTheConnection) {
  LoopbackListener listener;
  Subprocess child(Probe({"@threads:4:t"}, listener));
  std::optional<Connection> connection = listener.Accept();
  ASSERT_TRUE(connection);
  for (int i = 0; i < 4; ++i) {
    ASSERT_EQ(connection->ReadLine(), Hit("t", child.pid())) << "hit " << i;
    ASSERT_TRUE(connection->Send("CONTINUE\n"));
  }
  ProcessResult result = child.Wait();
  EXPECT_EQ(result.exit_code, 0) << result;
  EXPECT_EQ(result.out, "enabled=1\nafter @threads:4:t\n");
  EXPECT_FALSE(listener.Accept(kNoWait)) << "the client opened a second connection";
}

TEST_F(FailpointClientTest, ForkedChildOpensItsOwnConnection) {
  LoopbackListener listener;
  Subprocess parent(Probe({"a", "@fork", "b"}, listener));
  std::optional<Connection> first = listener.Accept();
  ASSERT_TRUE(first);
  ASSERT_EQ(first->ReadLine(), Hit("a", parent.pid()));
  ASSERT_TRUE(first->Send("CONTINUE\n"));
  std::optional<Connection> second = listener.Accept();
  ASSERT_TRUE(second) << "the forked child did not connect on its own";
  std::optional<std::string> line = second->ReadLine();
  ASSERT_TRUE(line);
  EXPECT_EQ(line->rfind("HIT b ", 0), 0u) << *line;
  EXPECT_NE(*line, Hit("b", parent.pid())) << "the child must send its own pid";
  ASSERT_TRUE(second->Send("CONTINUE\n"));
  ProcessResult result = parent.Wait();
  EXPECT_EQ(result.exit_code, 0) << result;
  EXPECT_NE(result.out.find("after b\n"), std::string::npos) << result;
  EXPECT_TRUE(first->WaitForEof()) << "the child wrote on its parent's connection";
}

TEST_F(FailpointClientTest, ErrorAnswerExits70) {
  LoopbackListener listener;
  Subprocess child(Probe({"x"}, listener));
  std::optional<Connection> connection = listener.Accept();
  ASSERT_TRUE(connection);
  ASSERT_EQ(connection->ReadLine(), Hit("x", child.pid()));
  ASSERT_TRUE(connection->Send("ERROR scenario has no point x\n"));
  ProcessResult result = child.Wait();
  EXPECT_EQ(result.exit_code, 70) << result;
  EXPECT_EQ(result.out, "enabled=1\n");
  EXPECT_NE(result.err.find("killpoint failpoint: "), std::string::npos) << result;
  EXPECT_NE(result.err.find("scenario has no point x"), std::string::npos) << result;
}

TEST_F(FailpointClientTest, UnexpectedAnswerExits70) {
  LoopbackListener listener;
  Subprocess child(Probe({"x"}, listener));
  std::optional<Connection> connection = listener.Accept();
  ASSERT_TRUE(connection);
  ASSERT_TRUE(connection->ReadLine());
  ASSERT_TRUE(connection->Send("continue\n"));
  ProcessResult result = child.Wait();
  EXPECT_EQ(result.exit_code, 70) << result;
  EXPECT_NE(result.err.find("unexpected answer"), std::string::npos) << result;
}

TEST_F(FailpointClientTest, ClosedChannelExits70) {
  LoopbackListener listener;
  Subprocess child(Probe({"x"}, listener));
  std::optional<Connection> connection = listener.Accept();
  ASSERT_TRUE(connection);
  ASSERT_TRUE(connection->ReadLine());
  connection->Close();
  ProcessResult result = child.Wait();
  EXPECT_EQ(result.exit_code, 70) << result;
  EXPECT_EQ(result.out, "enabled=1\n");
  EXPECT_NE(result.err.find("killpoint failpoint: "), std::string::npos) << result;
}

TEST_F(FailpointClientTest, UnreachableControllerExits70) {
  std::string address;
  {
    LoopbackListener closed;  // Takes a free port and gives it back.
    address = closed.address();
  }
  ProcessResult result = RunProcess(Probe({"x"}, address.c_str()));
  EXPECT_EQ(result.exit_code, 70) << result;
  EXPECT_NE(result.err.find("cannot connect to KILLPOINT_CTL=" + address), std::string::npos)
      << result;
}

TEST_F(FailpointClientTest, MalformedControllerAddressExits70) {
  ProcessResult result = RunProcess(Probe({"x"}, "localhost"));
  EXPECT_EQ(result.exit_code, 70) << result;
  EXPECT_NE(result.err.find("is not HOST:PORT"), std::string::npos) << result;
}

TEST_F(FailpointClientTest, InvalidNameExits70WithoutSendingIt) {
  LoopbackListener listener;
  ProcessResult result = RunProcess(Probe({"bad name"}, listener));
  EXPECT_EQ(result.exit_code, 70) << result;
  EXPECT_NE(result.err.find("invalid failpoint name \"bad name\""), std::string::npos) << result;
  EXPECT_FALSE(listener.Accept(kNoWait));
}

}  // namespace
}  // namespace killpoint::testing
