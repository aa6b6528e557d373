// Checks and the final-state capture over sandboxes a hostile or broken job left behind (issue
// 34): RapidCheck puts at each name a check reads (check.db, its -wal and -journal, the state
// file, a folder a command check copies) one of: nothing, a valid file, random bytes, a
// folder, a symlink loop, a dangling symlink, a symlink to a device, a FIFO, a socket, a file
// of mode 000, a deep tree; and may make the sandbox itself unsearchable. Every built-in
// checker, the scenario's own SQL check (also on a copy, as after every crash) and
// CaptureFinalState must answer: a verdict or an Error, never an exception, never a wait on a
// FIFO (a hang is this test's timeout). Before the fix, std::filesystem::exists threw out of
// three of them and the harness aborted.
// Rerun: build/tests/check_test --gtest_filter='DamagedSandbox.*'
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "check/checker.h"
#include "check_fixture.h"
#include "counterexample/final_state.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;

enum class Damage {
  kNothing,
  kValid,
  kRandomBytes,
  kFolder,
  kSymlinkLoop,
  kDanglingLink,
  kLinkToDevice,
  kFifo,
  kSocket,
  kModeZero,
  kDeepTree,
};
constexpr int kDamages = 11;

const char* Name(Damage d) {
  static const char* const kNames[] = {
      "nothing",           "valid", "random bytes", "folder",   "symlink loop", "dangling link",
      "link to /dev/zero", "fifo",  "socket",       "mode 000", "deep tree"};
  return kNames[static_cast<int>(d)];
}

// The names the checks below read, in the sandbox.
const std::vector<std::string> kTargets = {"settle.db", "settle.db-wal", "settle.db-journal",
                                           "state.json", "export"};

void Make(CheckFixture& f, const std::string& name, Damage d, const std::string& bytes) {
  fs::path p = f.dir() / name;
  switch (d) {
    case Damage::kNothing:
      return;
    case Damage::kValid:
      if (name == "settle.db")
        f.SettleDb();
      else if (name == "state.json")
        f.WriteFile(name, "{\"sent\": [\"2026-11-01\"]}");
      else if (name == "export")
        fs::create_directories(p / "2026-11-01");
      return;
    case Damage::kRandomBytes:
      f.WriteFile(name, bytes);
      return;
    case Damage::kFolder:
      fs::create_directories(p / "inside");
      return;
    case Damage::kSymlinkLoop:
      fs::create_symlink(name, p);  // ln -s settle.db settle.db
      return;
    case Damage::kDanglingLink:
      fs::create_symlink("no-such-file", p);
      return;
    case Damage::kLinkToDevice:
      fs::create_symlink("/dev/zero", p);
      return;
    case Damage::kFifo:
      RC_ASSERT(::mkfifo(p.c_str(), 0644) == 0);
      return;
    case Damage::kSocket: {
      int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
      sockaddr_un addr{};
      addr.sun_family = AF_UNIX;
      std::string path = p.string();
      if (path.size() < sizeof addr.sun_path) {
        path.copy(addr.sun_path, path.size());
        (void)::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
      }
      ::close(fd);
      return;
    }
    case Damage::kModeZero:
      f.WriteFile(name, bytes);
      fs::permissions(p, fs::perms::none);
      return;
    case Damage::kDeepTree: {
      fs::path deep = p;
      for (int i = 0; i < 60; ++i) deep /= "d";
      fs::create_directories(deep);
      return;
    }
  }
}

// Back to a tree that can be removed: every folder searchable, every file readable.
void Restore(const fs::path& dir) {
  std::error_code ec;
  fs::permissions(dir, fs::perms::owner_all, ec);
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_symlink(ec)) fs::permissions(it->path(), fs::perms::owner_all, ec);
  }
}

RC_GTEST_PROP(DamagedSandbox, EveryCheckAndTheFinalStateAnswerWithoutThrowing, ()) {
  CheckFixture f;
  Scenario& s = f.scenario();
  s.check.state_file = "state.json";
  s.must_hold = {"state_readable", "converges", "one_row_per_date", "amount_matches_source",
                 "commits_survive"};
  SqlCheck own;
  own.db = "settle.db";
  own.sql = "SELECT biz_date FROM daily_settlement WHERE amount_cents < 0";
  own.says = "a negative amount";
  own.after_every_crash = true;
  s.checks["no_negative_amount"] = own;
  f.Exit("2026-11-01", 0);
  f.Exit("2026-11-02", 0);

  std::vector<std::string> story;
  for (const std::string& name : kTargets) {
    auto d = static_cast<Damage>(*rc::gen::inRange(0, kDamages));
    std::string bytes = *rc::gen::container<std::string>(rc::gen::arbitrary<char>());
    story.push_back(name + ": " + Name(d));
    Make(f, name, d, bytes);
  }
  bool locked = *rc::gen::inRange(0, 5) == 0;  // the sandbox itself unsearchable (not as root)
  if (locked) fs::permissions(f.dir(), fs::perms::none);
  RC_LOG() << ::testing::PrintToString(story) << (locked ? " sandbox mode 000" : "") << "\n";

  std::vector<std::string> thrown;
  std::vector<Event> events = f.history().Events();
  CheckInput in{s, f.plan(), events, f.dir()};
  for (const auto& [invariant, checker] : BuiltinCheckers()) {
    try {
      (void)checker(in);
    } catch (const std::exception& e) {
      thrown.push_back(invariant + ": " + e.what());
    }
  }
  try {
    (void)RunOwnCheck("no_negative_amount", own, f.dir(), {});
    fs::path scratch = f.dir().parent_path() / (f.dir().filename().string() + "-scratch");
    (void)CheckCrashState(s, f.dir(), scratch, {});
    std::error_code ec;
    fs::remove_all(scratch, ec);
  } catch (const std::exception& e) {
    thrown.push_back(std::string("own check: ") + e.what());
  }
  try {
    nlohmann::json state = CaptureFinalState(s, f.dir(), events);
    RC_ASSERT(state.contains("state_file"));
  } catch (const std::exception& e) {
    thrown.push_back(std::string("final state: ") + e.what());
  }
  Restore(f.dir());
  if (!thrown.empty()) RC_FAIL(::testing::PrintToString(thrown));
}

}  // namespace
}  // namespace killpoint
