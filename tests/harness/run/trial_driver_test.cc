// The trial driver (run/trial_runner.cc) without a single process: a scripted spawner
// (TrialOptions::spawner) hands out fake processes that exit, die of a signal, outlive their
// timeout or report failpoints on a fake control channel, and a StopSource of the test's own
// (TrialOptions::stop) stands for SIGINT/SIGTERM. What is pinned: the retry loop and its backoff
// (exponential, capped), the rate limit and the circuit breaker on the virtual clock, timeouts,
// planned kills, non-retryable codes, the final pass, interruption, and the events recorded.
// Nothing sleeps: every wait of the driver is on the history's virtual clock.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <deque>
#include <fstream>

#include "channel/control_channel.h"
#include "downstream/downstream.h"
#include "history/event_registry.h"
#include "history/history.h"
#include "run/sandbox.h"
#include "run/trial_runner.h"
#include "run/trial_services.h"
#include "scenario/scenario_parser.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// How one scripted attempt goes.
struct Script {
  int code = 0;         // exits with this code...
  int signal = 0;       // ...or dies of this signal
  int64_t runs_ms = 0;  // beyond the timeout it is waited with: killed at the timeout
  std::vector<std::string> hits = {};  // failpoints it reports on the control channel, in order
  std::string stderr_text = {};
  int stop_while_running = 0;  // the harness gets this signal while the attempt is waited for
  int stop_after = 0;          // ...or once the attempt ended by itself
  bool spawn_fails = false;
};

Script Exits(int code) { return Script{.code = code}; }

// The control channel's end: the driver's handler (AttemptState::OnHit), called directly.
class DirectChannel : public ControlChannel {
 public:
  std::string Address() const override { return "127.0.0.1:1"; }
  int RefusedPeers() const override { return 0; }
  bool WaitIdle(std::chrono::milliseconds) override { return true; }
  void Answer(uint64_t, HitAnswer) override {}
  void Reset(Handler handler) override { handler_ = std::move(handler); }
  HitAnswer Hit(const FailpointHit& hit) {
    return handler_ ? handler_(hit) : HitAnswer::Continue();
  }

 private:
  Handler handler_;
};

// A downstream nobody calls; it remembers the bursts it was armed with.
class SilentDownstream : public Downstream {
 public:
  std::string BaseUrl() const override { return "http://127.0.0.1:1"; }
  void ArmFault(const std::string&) override {}
  void ArmBurst(int length) override { bursts.push_back(length); }
  void SetInstance(int) override {}
  void ReleaseHeld() override {}
  void Attach(bool, History*, bool) override {}
  void Detach() override {}
  void SetPointHook(PointHook) override {}
  bool WaitPoints(std::chrono::milliseconds) override { return true; }
  std::vector<int> bursts;
};

class ScriptedProcess : public RunningProcess {
 public:
  // `timeouts`: where each Wait's timeout is noted.
  ScriptedProcess(Script script, SpawnRequest request, int pid, DirectChannel* channel,
                  StopSource* stop, std::vector<int64_t>* timeouts)
      : script_(std::move(script)),
        request_(std::move(request)),
        pid_(pid),
        channel_(channel),
        stop_(stop),
        timeouts_(timeouts) {}

  int pid() const override { return pid_; }
  const std::string& tag() const override { return tag_; }
  void KillGroup() override { killed_ = true; }
  void SignalGroup(int) override {}
  bool WaitForExit(std::chrono::milliseconds) override { return true; }

  ExitStatus Wait(std::chrono::milliseconds timeout) override {
    waited_with_ = timeout.count();
    timeouts_->push_back(waited_with_);
    if (script_.stop_while_running != 0) stop_->RequestStop(script_.stop_while_running);
    for (const std::string& point : script_.hits) {
      if (killed_ || request_.stop.stop_requested()) break;
      FailpointHit hit;
      hit.name = point;
      hit.pid = pid_;
      channel_->Hit(hit);
    }
    std::ofstream(request_.stderr_path) << script_.stderr_text;
    ExitStatus s = Ended();
    if (script_.stop_after != 0) stop_->RequestStop(script_.stop_after);
    return s;
  }

 private:
  ExitStatus Ended() const {
    ExitStatus s;
    s.interrupted = request_.stop.stop_requested();  // as the real wait: the group is killed
    s.timed_out = !s.interrupted && !killed_ && script_.runs_ms > waited_with_;
    if (s.interrupted || s.timed_out || killed_) {
      s.signal = SIGKILL;
    } else if (script_.signal != 0) {
      s.signal = script_.signal;
    } else {
      s.exited = true;
      s.code = script_.code;
    }
    return s;
  }

  Script script_;
  SpawnRequest request_;
  int pid_;
  DirectChannel* channel_;
  StopSource* stop_;
  std::vector<int64_t>* timeouts_;
  int64_t waited_with_ = -1;
  std::string tag_ = "scripted";
  bool killed_ = false;
};

// Hands out the scripts in order; once they are spent, attempts exit 0.
class ScriptedSpawner : public Spawner {
 public:
  ScriptedSpawner(DirectChannel* channel, StopSource* stop) : channel_(channel), stop_(stop) {}

  Result<std::unique_ptr<RunningProcess>> Spawn(const SpawnRequest& request) override {
    requests.push_back(request);
    Script script = scripts.empty() ? Exits(0) : scripts.front();
    if (!scripts.empty()) scripts.pop_front();
    if (script.spawn_fails)
      return Error::BadInput("job program 'job' is missing or not executable");
    int pid = 1000 + static_cast<int>(requests.size());
    return std::unique_ptr<RunningProcess>(
        std::make_unique<ScriptedProcess>(script, request, pid, channel_, stop_, &timeouts));
  }

  std::deque<Script> scripts;
  std::vector<SpawnRequest> requests;
  std::vector<int64_t> timeouts;  // each wait's, in ms

 private:
  DirectChannel* channel_;
  StopSource* stop_;
};

class TrialDriverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::path ram = RamFolder();  // a sandbox costs a few ms on a disk, nothing in RAM
    root_ = (ram.empty() ? fs::temp_directory_path() : ram) /
            ("kp-driver-" + std::to_string(::getpid()));
    fs::create_directories(root_);
    auto channel = std::make_unique<DirectChannel>();
    auto downstream = std::make_unique<SilentDownstream>();
    channel_ = channel.get();
    downstream_ = downstream.get();
    services_ = TrialServices{std::move(downstream), std::move(channel), nullptr};
    spawner_ = std::make_unique<ScriptedSpawner>(channel_, &stop_);
    options_.bindir = "/bin-of-jobs";
    options_.sandbox_root = root_;
    options_.spawner = spawner_.get();
    options_.stop = stop_.token();
  }
  void TearDown() override { fs::remove_all(root_); }

  // A scenario with the given "retry" object (docs/retry.md), its timeout and its dates.
  static Scenario DriverScenario(nlohmann::json retry,
                                 std::vector<std::string> dates = {"2026-11-01"},
                                 nlohmann::json extra_job = nlohmann::json::object()) {
    nlohmann::json job = {{"command", {"{bindir}/job", "{biz_date}", "{attempt}"}},
                          {"timeout_ms", 300}};
    job.update(extra_job);
    nlohmann::json j = {{"name", "unit/driver"}, {"job", job},
                        {"dates", dates},        {"failpoints", {"after_publish"}},
                        {"retry", retry},        {"invariants", {{"must_hold", {"converges"}}}}};
    auto s = ParseScenario(j.dump(), "/scenarios/driver.json");
    EXPECT_TRUE(s) << s.error().message;
    return s.value();
  }

  // One planned run per date, without faults unless `faults` gives the first date's.
  static Plan PlanFor(const Scenario& s, std::vector<AttemptFault> faults = {}) {
    Plan p{s.name, 7, 3, {}};
    for (const auto& date : s.dates)
      p.runs.push_back({date, 1, p.runs.empty() ? faults : std::vector<AttemptFault>{}});
    return p;
  }

  Result<TrialRecord> Run(const Scenario& s, const Plan& p) {
    return RunTrial(s, p, options_, &services_);
  }

  // The n-th event of `type` (from 0; -1: the last); a failure and an empty event if none.
  static Event Nth(const std::vector<Event>& events, const char* type, int n) {
    std::vector<Event> of = OfType(events, type);
    if (n < 0) n += static_cast<int>(of.size());
    if (n >= 0 && n < static_cast<int>(of.size())) return of[static_cast<size_t>(n)];
    ADD_FAILURE() << "no " << type << " event #" << n;
    return Event{};
  }
  static std::vector<std::string> Types(const std::vector<Event>& events) {
    std::vector<std::string> out;
    for (const auto& e : events) out.push_back(e.type);
    return out;
  }
  // The retry_wait events as "reason delay".
  static std::vector<std::string> Waits(const std::vector<Event>& events) {
    std::vector<std::string> out;
    for (const auto& e : OfType(events, event::RetryWait::kType)) {
      out.push_back(e.data.at("reason").get<std::string>() + " " +
                    std::to_string(e.data.at("delay_ms").get<int64_t>()));
    }
    return out;
  }
  // The spawn events as "date#trigger a<attempt> @t_ms".
  static std::vector<std::string> Spawns(const std::vector<Event>& events) {
    std::vector<std::string> out;
    for (const auto& e : OfType(events, event::Spawn::kType)) {
      out.push_back(e.biz_date + "#" + std::to_string(e.trigger) + " a" +
                    std::to_string(e.attempt) + " @" + std::to_string(e.t_ms));
    }
    return out;
  }
  static std::vector<std::string> Breakers(const std::vector<Event>& events) {
    std::vector<std::string> out;
    for (const auto& e : OfType(events, event::Breaker::kType)) {
      out.push_back(e.data.at("from").get<std::string>() + ">" +
                    e.data.at("to").get<std::string>() + " @" + std::to_string(e.t_ms));
    }
    return out;
  }

  fs::path root_;
  StopSource stop_;
  DirectChannel* channel_ = nullptr;
  SilentDownstream* downstream_ = nullptr;
  TrialServices services_;
  std::unique_ptr<ScriptedSpawner> spawner_;
  TrialOptions options_;
};

AttemptFault KillAt(const std::string& point, int occurrence) {
  AttemptFault f;
  f.kill_point = point;
  f.occurrence = occurrence;
  return f;
}

TEST_F(TrialDriverTest, ASuccessfulTrialRecordsItsEventsInOrder) {
  Scenario s = DriverScenario({{"max_attempts", 3}, {"initial_interval_ms", 100}});
  spawner_->scripts = {Script{.code = 1, .stderr_text = "boom\n"}, Exits(0)};
  auto record = Run(s, PlanFor(s));
  ASSERT_TRUE(record) << record.error().message;
  const auto& events = record.value().events;
  EXPECT_THAT(Types(events), ElementsAre("trial_start", "spawn", "exit", "retry_wait", "spawn",
                                         "exit", "final_pass", "trial_end"));
  EXPECT_EQ(Nth(events, event::Exit::kType, 0).data.at("code"), 1);
  EXPECT_EQ(Nth(events, event::Exit::kType, 0).data.at("stderr"), "boom\n");
  EXPECT_EQ(Nth(events, event::Exit::kType, 0).data.at("killed_by_harness"), false);
  EXPECT_EQ(Nth(events, event::Exit::kType, 1).data.at("code"), 0);
  EXPECT_EQ(Nth(events, event::FinalPass::kType, 0).data.at("biz_dates"), nlohmann::json::array());
  // The request: placeholders filled, the attempt's variables, the test's stop token.
  ASSERT_EQ(spawner_->requests.size(), 2u);
  const SpawnRequest& second = spawner_->requests[1];
  EXPECT_THAT(second.argv, ElementsAre("/bin-of-jobs/job", "2026-11-01", "2"));
  EXPECT_EQ(second.env.at("KILLPOINT_ATTEMPT"), "2");
  EXPECT_EQ(second.env.at("KILLPOINT_BIZ_DATE"), "2026-11-01");
  EXPECT_EQ(second.cwd, record.value().sandbox.work());
  stop_.RequestStop(SIGINT);
  EXPECT_EQ(second.stop.signal(), SIGINT) << "the request carries TrialOptions::stop";
}

TEST_F(TrialDriverTest, BacksOffExponentiallyUpToTheMaximumInterval) {
  Scenario s = DriverScenario({{"max_attempts", 5},
                               {"initial_interval_ms", 100},
                               {"backoff_coefficient", 2.0},
                               {"maximum_interval_ms", 300}});
  spawner_->scripts = {Exits(1), Exits(1), Exits(1), Exits(1), Exits(0)};
  auto record = Run(s, PlanFor(s));
  ASSERT_TRUE(record) << record.error().message;
  const auto& events = record.value().events;
  EXPECT_THAT(Waits(events),
              ElementsAre("backoff 100", "backoff 200", "backoff 300", "backoff 300"));
  EXPECT_THAT(Spawns(events),
              ElementsAre("2026-11-01#1 a1 @0", "2026-11-01#1 a2 @100", "2026-11-01#1 a3 @300",
                          "2026-11-01#1 a4 @600", "2026-11-01#1 a5 @900"));
  EXPECT_EQ(Nth(events, event::RetryWait::kType, 0).data.at("next_attempt"), 2);
  EXPECT_EQ(Nth(events, event::RetryWait::kType, 3).data.at("next_attempt"), 5);
  EXPECT_TRUE(OfType(events, event::GiveUp::kType).empty());
}

TEST_F(TrialDriverTest, GivesUpAfterMaxAttemptsAndTheFinalPassRunsTheDateAgain) {
  Scenario s = DriverScenario(
      {{"max_attempts", 2}, {"initial_interval_ms", 50}, {"backoff_coefficient", 1.0}},
      {"2026-11-01", "2026-11-02"});
  spawner_->scripts = {Exits(1), Exits(1), Exits(0), Exits(1), Exits(0)};
  auto record = Run(s, PlanFor(s));
  ASSERT_TRUE(record) << record.error().message;
  const auto& events = record.value().events;
  auto give_up = OfType(events, event::GiveUp::kType);
  ASSERT_EQ(give_up.size(), 1u);
  EXPECT_EQ(Nth(events, event::GiveUp::kType, 0).data.at("attempts"), 2);
  EXPECT_EQ(Nth(events, event::GiveUp::kType, 0).biz_date, "2026-11-01");
  auto final_pass = OfType(events, event::FinalPass::kType);
  ASSERT_EQ(final_pass.size(), 1u);
  EXPECT_THAT(
      Nth(events, event::FinalPass::kType, 0).data.at("biz_dates").get<std::vector<std::string>>(),
      ElementsAre("2026-11-01"));
  // The final pass is the scheduler firing the failed date again: trigger 2, attempts from 1,
  // with its own backoff; the succeeded date is left alone.
  EXPECT_THAT(Spawns(events),
              ElementsAre("2026-11-01#1 a1 @0", "2026-11-01#1 a2 @50", "2026-11-02#1 a1 @50",
                          "2026-11-01#2 a1 @50", "2026-11-01#2 a2 @100"));
}

TEST_F(TrialDriverTest, ANonRetryableExitCodeEndsTheRunAtOnce) {
  Scenario s = DriverScenario(
      {{"max_attempts", 4}, {"initial_interval_ms", 10}, {"non_retryable_exit_codes", {3}}});
  spawner_->scripts = {Exits(1), Exits(3), Exits(3)};
  auto record = Run(s, PlanFor(s));
  ASSERT_TRUE(record) << record.error().message;
  const auto& events = record.value().events;
  auto stopped = OfType(events, event::NonRetryable::kType);
  ASSERT_EQ(stopped.size(), 2u);  // the planned run's second attempt, then the final pass's first
  EXPECT_EQ(Nth(events, event::NonRetryable::kType, 0).data.at("code"), 3);
  EXPECT_EQ(Nth(events, event::NonRetryable::kType, 0).data.at("attempts"), 2);
  EXPECT_TRUE(OfType(events, event::GiveUp::kType).empty());
  EXPECT_THAT(Spawns(events),
              ElementsAre("2026-11-01#1 a1 @0", "2026-11-01#1 a2 @10", "2026-11-01#2 a1 @10"));
}

TEST_F(TrialDriverTest, AJobKilledByASignalIsRetriedWhateverTheNonRetryableCodes) {
  // 137 is what a shell reports for SIGKILL; a signal is never a non-retryable exit code.
  Scenario s = DriverScenario(
      {{"max_attempts", 2}, {"initial_interval_ms", 10}, {"non_retryable_exit_codes", {137}}});
  spawner_->scripts = {Script{.signal = SIGKILL}, Exits(0)};
  auto record = Run(s, PlanFor(s));
  ASSERT_TRUE(record) << record.error().message;
  auto exits = OfType(record.value().events, event::Exit::kType);
  ASSERT_EQ(exits.size(), 2u);
  EXPECT_EQ(Nth(record.value().events, event::Exit::kType, 0).data.at("signal"), SIGKILL);
  EXPECT_EQ(Nth(record.value().events, event::Exit::kType, 0).data.at("code"), 137);
  EXPECT_EQ(Nth(record.value().events, event::Exit::kType, 0).data.at("killed_by_harness"), false);
  EXPECT_TRUE(OfType(record.value().events, event::NonRetryable::kType).empty());
}

TEST_F(TrialDriverTest, TheBreakerOpensAfterConsecutiveFailuresAndItsProbeDecides) {
  Scenario s = DriverScenario({{"max_attempts", 4},
                               {"initial_interval_ms", 100},
                               {"backoff_coefficient", 1.0},
                               {"circuit_breaker", {{"failure_threshold", 2}, {"open_ms", 1000}}}});
  spawner_->scripts = {Exits(1), Exits(1), Exits(1), Exits(0)};
  auto record = Run(s, PlanFor(s));
  ASSERT_TRUE(record) << record.error().message;
  const auto& events = record.value().events;
  // Opened by the second failure at 100; the third attempt waits out open_ms (backoff 100, then
  // 900 more) as the half-open probe, fails and reopens it; the fourth probe closes it.
  EXPECT_THAT(Breakers(events),
              ElementsAre("closed>open @100", "open>half_open @1100", "half_open>open @1100",
                          "open>half_open @2100", "half_open>closed @2100"));
  EXPECT_THAT(Waits(events), ElementsAre("backoff 100", "backoff 100", "breaker_open 900",
                                         "backoff 100", "breaker_open 900"));
  EXPECT_THAT(Spawns(events), ElementsAre("2026-11-01#1 a1 @0", "2026-11-01#1 a2 @100",
                                          "2026-11-01#1 a3 @1100", "2026-11-01#1 a4 @2100"));
}

TEST_F(TrialDriverTest, TheRateLimitHoldsAnAttemptBackUntilTheWindowHasRoom) {
  Scenario s = DriverScenario({{"max_attempts", 3},
                               {"initial_interval_ms", 10},
                               {"backoff_coefficient", 1.0},
                               {"rate_limit", {{"max_attempts", 2}, {"window_ms", 1000}}}});
  spawner_->scripts = {Exits(1), Exits(1), Exits(0)};
  auto record = Run(s, PlanFor(s));
  ASSERT_TRUE(record) << record.error().message;
  const auto& events = record.value().events;
  EXPECT_THAT(Waits(events), ElementsAre("backoff 10", "backoff 10", "rate_limit 980"));
  EXPECT_THAT(Spawns(events),
              ElementsAre("2026-11-01#1 a1 @0", "2026-11-01#1 a2 @10", "2026-11-01#1 a3 @1000"));
}

TEST_F(TrialDriverTest, AnAttemptPastItsTimeoutIsKilledRecordedAndRetried) {
  Scenario s = DriverScenario({{"max_attempts", 2}, {"initial_interval_ms", 10}});
  spawner_->scripts = {Script{.runs_ms = 60'000}, Exits(0)};
  auto record = Run(s, PlanFor(s));
  ASSERT_TRUE(record) << record.error().message;
  const auto& events = record.value().events;
  EXPECT_THAT(Types(events), ElementsAre("trial_start", "spawn", "timeout", "exit", "retry_wait",
                                         "spawn", "exit", "final_pass", "trial_end"));
  EXPECT_EQ(Nth(events, event::Timeout::kType, 0).data.at("timeout_ms"), 300);
  EXPECT_EQ(Nth(events, event::Timeout::kType, 0).attempt, 1);
  EXPECT_EQ(Nth(events, event::Exit::kType, 0).data.at("killed_by_harness"), true);
  EXPECT_EQ(Nth(events, event::Exit::kType, 0).data.at("signal"), SIGKILL);
  EXPECT_EQ(Nth(events, event::Exit::kType, 1).data.at("code"), 0);
  EXPECT_THAT(spawner_->timeouts, ElementsAre(300, 300));
}

TEST_F(TrialDriverTest, APlannedKillFiresAtItsOccurrenceAndTheRetryRunsWithoutIt) {
  Scenario s = DriverScenario({{"max_attempts", 2}, {"initial_interval_ms", 10}});
  std::vector<std::string> three = {"after_publish", "after_publish", "after_publish"};
  spawner_->scripts = {Script{.hits = three}, Script{.hits = three}};
  auto record = Run(s, PlanFor(s, {KillAt("after_publish", 2)}));
  ASSERT_TRUE(record) << record.error().message;
  const auto& events = record.value().events;
  EXPECT_THAT(Types(events), ElementsAre("trial_start", "spawn", "failpoint", "failpoint", "kill",
                                         "exit", "retry_wait", "spawn", "failpoint", "failpoint",
                                         "failpoint", "exit", "final_pass", "trial_end"));
  EXPECT_EQ(Nth(events, event::Kill::kType, 0).data.at("point"), "after_publish");
  EXPECT_EQ(Nth(events, event::Kill::kType, 0).data.at("hit"), 2);
  EXPECT_EQ(Nth(events, event::Kill::kType, 0).data.at("model"), "process");
  EXPECT_EQ(Nth(events, event::Exit::kType, 0).data.at("killed_by_harness"), true);
  EXPECT_EQ(Nth(events, event::Exit::kType, 0).data.at("signal"), SIGKILL);
  EXPECT_EQ(Nth(events, event::Exit::kType, 1).data.at("code"), 0);
  EXPECT_EQ(Nth(events, event::Spawn::kType, 0).data.at("fault"),
            nlohmann::json(KillAt("after_publish", 2)));
}

TEST_F(TrialDriverTest, TheFinalPassRunsEveryFailedDateWithoutFaults) {
  Scenario s = DriverScenario({{"max_attempts", 2}, {"initial_interval_ms", 10}},
                              {"2026-11-01", "2026-11-02"});
  AttemptFault burst = KillAt("after_publish", 1);
  burst.downstream_burst = 3;
  Script publishes{.hits = {"after_publish"}};
  spawner_->scripts = {publishes, publishes, publishes, publishes};
  auto record = Run(s, PlanFor(s, {burst, KillAt("after_publish", 1)}));
  ASSERT_TRUE(record) << record.error().message;
  const auto& events = record.value().events;
  EXPECT_EQ(OfType(events, event::Kill::kType).size(), 2u)
      << "both planned attempts of the first date are killed";
  auto final_pass = OfType(events, event::FinalPass::kType);
  ASSERT_EQ(final_pass.size(), 1u);
  EXPECT_THAT(
      Nth(events, event::FinalPass::kType, 0).data.at("biz_dates").get<std::vector<std::string>>(),
      ElementsAre("2026-11-01"));
  EXPECT_THAT(Spawns(events), ElementsAre("2026-11-01#1 a1 @0", "2026-11-01#1 a2 @10",
                                          "2026-11-02#1 a1 @10", "2026-11-01#2 a1 @10"));
  auto last_spawn = Nth(events, event::Spawn::kType, -1);
  EXPECT_TRUE(last_spawn.data.at("fault").get<AttemptFault>().None())
      << "the final pass carries no fault";
  EXPECT_EQ(Nth(events, event::Exit::kType, -1).data.at("code"), 0);
  EXPECT_THAT(downstream_->bursts, ElementsAre(3, 0))
      << "the burst is disarmed before the final pass";
}

TEST_F(TrialDriverTest, AStopBetweenAttemptsEndsTheTrialBeforeTheNextSpawn) {
  Scenario s = DriverScenario({{"max_attempts", 3}, {"initial_interval_ms", 10}});
  spawner_->scripts = {Script{.code = 1, .stop_after = SIGINT}, Exits(0)};
  auto record = Run(s, PlanFor(s));
  ASSERT_FALSE(record) << "the trial ran on after the stop";
  EXPECT_THAT(record.error().message, HasSubstr("interrupted by SIGINT"));
  EXPECT_EQ(spawner_->requests.size(), 1u);
  EXPECT_TRUE(fs::is_empty(root_)) << "the abandoned trial's sandbox was left behind";
}

TEST_F(TrialDriverTest, AStopDuringAnAttemptEndsItsWaitAndTheTrial) {
  Scenario s = DriverScenario({{"max_attempts", 3}, {"initial_interval_ms", 10}});
  spawner_->scripts = {Exits(1), Script{.hits = {"after_publish"}, .stop_while_running = SIGTERM},
                       Exits(0)};
  auto record = Run(s, PlanFor(s));
  ASSERT_FALSE(record);
  EXPECT_THAT(record.error().message, HasSubstr("interrupted by SIGTERM"));
  EXPECT_EQ(spawner_->requests.size(), 2u);
}

TEST_F(TrialDriverTest, AStoppedRunStartsNoTrialAtAll) {
  stop_.RequestStop(SIGTERM);
  Scenario s =
      DriverScenario({{"max_attempts", 3}}, {"2026-11-01"}, {{"setup", {"{bindir}/setup"}}});
  auto record = Run(s, PlanFor(s));
  ASSERT_FALSE(record);
  EXPECT_THAT(record.error().message, HasSubstr("interrupted by SIGTERM"));
  EXPECT_TRUE(spawner_->requests.empty()) << "not even the setup ran";
}

TEST_F(TrialDriverTest, EachAttemptIsWaitedForWithTheJobsTimeout) {
  Scenario s = DriverScenario({{"max_attempts", 1}}, {"2026-11-01"}, {{"timeout_ms", 1234}});
  auto record = Run(s, PlanFor(s));
  ASSERT_TRUE(record) << record.error().message;
  EXPECT_THAT(spawner_->timeouts, ElementsAre(1234));
  EXPECT_TRUE(OfType(record.value().events, event::Timeout::kType).empty());
}

TEST_F(TrialDriverTest, AFailedSetupIsBadInputAndNoAttemptRuns) {
  Scenario s = DriverScenario({{"max_attempts", 3}}, {"2026-11-01"},
                              {{"setup", {"{bindir}/setup", "{workdir}"}}});
  spawner_->scripts = {Script{.code = 2, .stderr_text = "no schema\n"}};
  auto record = Run(s, PlanFor(s));
  ASSERT_FALSE(record);
  EXPECT_EQ(record.error().kind, ErrorKind::kBadInput);
  EXPECT_THAT(record.error().message, HasSubstr("job.setup exited with code 2: no schema"));
  ASSERT_EQ(spawner_->requests.size(), 1u);
  EXPECT_EQ(spawner_->requests[0].argv[0], "/bin-of-jobs/setup");
}

TEST_F(TrialDriverTest, AJobThatCannotStartIsBadInput) {
  Scenario s = DriverScenario({{"max_attempts", 3}});
  spawner_->scripts = {Script{.spawn_fails = true}};
  auto record = Run(s, PlanFor(s));
  ASSERT_FALSE(record);
  EXPECT_EQ(record.error().kind, ErrorKind::kBadInput);
  EXPECT_THAT(record.error().message, HasSubstr("job.command: job program 'job' is missing"));
  EXPECT_EQ(spawner_->requests.size(), 1u) << "a job that cannot start is not retried";
}

}  // namespace
}  // namespace killpoint
