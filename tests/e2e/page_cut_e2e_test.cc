// A kill in the middle of a write, for real (issue 32, docs/persistence-models.md, "Kills in the
// middle of a write"): a C job writes 10,000 bytes at offset 100 of a file, and the harness kills
// it in the middle of that write under each interception backend. Under the process model the
// file ends at a page boundary (4096: 3,996 of the bytes), the one state a kill -9 can leave; a
// write within one page is not cut at all; under torn the cut stays at half the bytes. The
// history's kill event says each.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <ostream>
#include <string>
#include <tuple>

#include "channel/interception.h"
#include "history/event_registry.h"
#include "history/history.h"
#include "plan/crash_point.h"
#include "run/trial_runner.h"
#include "scenario/scenario_parser.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;

// The job: kp-shim-probe write-at (tests/shim/shim_probe.c) writes `bytes` bytes that land at
// `offset` of data.bin, by pwrite, by write after an lseek, or by an O_APPEND write; a retry
// (the final pass) finds the file and leaves it as the kill did.
Scenario WriteAt(const std::string& how, int64_t offset, int64_t bytes) {
  nlohmann::json j = {{"name", "fixture/page-cut"},
                      {"job",
                       {{"command",
                         {KP_SHIM_PROBE, "write-at", "data.bin", std::to_string(offset),
                          std::to_string(bytes), how}},
                        {"timeout_ms", 60000}}},
                      {"dates", {"2026-11-01"}},
                      {"failpoints", {"write:data.bin"}},
                      {"models", {"process", "torn"}},
                      {"retry", {{"max_attempts", 1}, {"initial_interval_ms", 0}}},
                      {"invariants", {{"must_hold", {"converges"}}}}};
  auto s = ParseScenario(j.dump(), fs::path(KILLPOINT_SOURCE_DIR) / "tests/fixtures/page-cut.json");
  EXPECT_TRUE(s) << s.error().message;
  return s.value();
}

struct Cut {
  int64_t size = -1;  // data.bin's size once the trial is over
  nlohmann::json kill;
};

// One trial whose first attempt is killed in the middle of the write, under `model`.
Cut KilledMid(const Scenario& s, Interception intercept, PersistenceModel model) {
  AttemptFault fault;
  fault.kill_point = "write:data.bin";
  fault.when = Moment::kMid;
  fault.model = model;
  Plan plan{s.name, 1, 0, {{s.dates.front(), 1, {fault}}}};
  TrialOptions o;
  o.bindir = KILLPOINT_BIN_DIR;
  o.sandbox_root = fs::temp_directory_path();
  o.intercept = intercept;
  auto record = RunTrial(s, plan, o);
  EXPECT_TRUE(record) << record.error().message;
  if (!record) return {};
  Cut cut;
  struct stat st {};
  if (::stat((record.value().sandbox.work() / "data.bin").c_str(), &st) == 0) cut.size = st.st_size;
  auto kills = OfType(record.value().events, event::Kill::kType);
  EXPECT_EQ(kills.size(), 1u);
  if (!kills.empty()) cut.kill = kills[0].data;
  return cut;
}

}  // namespace

// For gtest's messages: the backend's name.
void PrintTo(Interception i, std::ostream* os) { *os << NameOf(i); }

namespace {

class PageCut : public ::testing::TestWithParam<std::tuple<Interception, const char*>> {
 protected:
  void SetUp() override {
    if (std::get<0>(GetParam()) == Interception::kSeccomp) {
      if (Status s = SeccompAvailable(); !s) GTEST_SKIP() << s.error().message;
    }
  }
  Interception intercept() const { return std::get<0>(GetParam()); }
  std::string how() const { return std::get<1>(GetParam()); }
};

TEST_P(PageCut, UnderProcessTheFileEndsAtAPageBoundary) {
  Cut cut = KilledMid(WriteAt(how(), 100, 10'000), intercept(), PersistenceModel::kProcess);
  EXPECT_EQ(cut.size, 4096) << cut.kill.dump();
  EXPECT_EQ(cut.kill["when"], "mid") << cut.kill.dump();
  EXPECT_EQ(cut.kill["bytes"], 10'000) << cut.kill.dump();
  EXPECT_EQ(cut.kill["offset"], 100) << cut.kill.dump();
  EXPECT_EQ(cut.kill["kept"], 3996) << cut.kill.dump();
}

TEST_P(PageCut, UnderProcessAWriteWithinOnePageIsNotCut) {
  Cut cut = KilledMid(WriteAt(how(), 100, 1000), intercept(), PersistenceModel::kProcess);
  // Killed before the write: the file as the job made it (empty, or its first 100 bytes for
  // the O_APPEND write, which the probe first truncates to the offset).
  EXPECT_EQ(cut.size, how() == "append" ? 100 : 0) << cut.kill.dump();
  EXPECT_EQ(cut.kill["when"], "before") << cut.kill.dump();
  EXPECT_EQ(cut.kill["planned"], "mid") << cut.kill.dump();
  EXPECT_EQ(cut.kill["uncut"], "one_page") << cut.kill.dump();
  EXPECT_EQ(cut.kill["offset"], 100) << cut.kill.dump();
}

// torn simulates a disk that may keep any prefix: the kill cuts the write at half its bytes
// (what the file holds afterwards is torn's own draw from the durable and the last content).
TEST_P(PageCut, UnderTornTheCutStaysInTheMiddle) {
  Cut cut = KilledMid(WriteAt(how(), 100, 10'000), intercept(), PersistenceModel::kTorn);
  EXPECT_EQ(cut.kill["when"], "mid") << cut.kill.dump();
  EXPECT_EQ(cut.kill["kept"], 5000) << cut.kill.dump();
}

INSTANTIATE_TEST_SUITE_P(Backends, PageCut,
                         ::testing::Combine(::testing::Values(Interception::kPreload,
                                                              Interception::kSeccomp),
                                            ::testing::Values("pwrite", "seek", "append")),
                         [](const auto& info) {
                           return std::string(NameOf(std::get<0>(info.param))) + "_" +
                                  std::get<1>(info.param);
                         });

}  // namespace
}  // namespace killpoint
