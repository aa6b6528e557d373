#include "run/trial_runner.h"

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>

#include "history/history.h"
#include "run/attempt_state.h"
#include "run/control_channel.h"
#include "run/downstream.h"
#include "run/durability.h"
#include "run/placeholders.h"
#include "run/process.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;
constexpr size_t kStderrTail = 2048;
// How long the runner waits, once a job has exited, for the last one-way reports of its
// processes (a grandchild that outlives the job may hold its connection open longer).
constexpr std::chrono::milliseconds kDrainTimeout{2000};

std::string Tail(const fs::path& file, size_t max) {
  std::ifstream in(file, std::ios::binary);
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return s.size() > max ? "..." + s.substr(s.size() - max) : s;
}

class TrialDriver {
 public:
  TrialDriver(const Scenario& s, const Plan& p, const TrialOptions& o, Sandbox box)
      : scenario_(s),
        plan_(p),
        options_(o),
        sandbox_(std::move(box)),
        attempt_(&history_, s.UsesShim() ? &durability_ : nullptr) {}

  Result<TrialRecord> Run() {
    auto started = std::chrono::steady_clock::now();
    history_.Add(event::kTrialStart, {{"plan", plan_}, {"sandbox", sandbox_.root().string()}});
    auto downstream = Downstream::Start(scenario_.downstream.dedupe, &history_);
    if (!downstream) return downstream.error();
    downstream_ = std::move(downstream.value());
    auto channel = ControlChannel::Start([this](const FailpointHit& h) { return attempt_.OnHit(h); });
    if (!channel) return channel.error();
    channel_ = std::move(channel.value());
    if (Status s = FindShim(); !s) return s.error();
    if (Status s = RunSetup(); !s) return s.error();
    for (const PlannedRun& run : plan_.runs) {
      auto ok = RunWithRetries(run.biz_date, run.trigger, &run);
      if (!ok) return ok.error();
      succeeded_[run.biz_date] = ok.value();
      last_trigger_[run.biz_date] = run.trigger;
    }
    if (Status s = FinalPass(); !s) return s.error();
    auto elapsed = std::chrono::steady_clock::now() - started;
    history_.SetContext({});
    history_.Add(event::kTrialEnd,
                 {{"elapsed_ms", std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count()}});
    channel_.reset();
    downstream_.reset();
    if (options_.keep_sandbox) sandbox_.Keep();
    return TrialRecord{plan_, history_.Events(), std::move(sandbox_)};
  }

 private:
  std::map<std::string, std::string> Vars(const std::string& date, int attempt) const {
    std::string dates;
    for (const auto& d : scenario_.dates) dates += (dates.empty() ? "" : ",") + d;
    return {{"bindir", options_.bindir.string()},
            {"scenario_dir", fs::absolute(scenario_.file).parent_path().string()},
            {"workdir", sandbox_.work().string()},
            {"biz_date", date},
            {"dates", dates},
            {"downstream", downstream_->BaseUrl()},
            {"attempt", std::to_string(attempt)},
            {"trial", std::to_string(plan_.trial)}};
  }

  SpawnRequest Request(const std::vector<std::string>& argv, const std::string& date, int attempt,
                       const std::string& log_name) const {
    auto vars = Vars(date, attempt);
    SpawnRequest r;
    for (const auto& a : argv) r.argv.push_back(Substitute(a, vars));
    for (const auto& [k, v] : scenario_.job.env) r.env[k] = Substitute(v, vars);
    r.env["KILLPOINT_WORKDIR"] = sandbox_.work().string();
    r.env["KILLPOINT_BIZ_DATE"] = date;
    r.env["KILLPOINT_ATTEMPT"] = std::to_string(attempt);
    r.env["KILLPOINT_DOWNSTREAM"] = downstream_->BaseUrl();
    r.env["KILLPOINT_CTL"] = channel_->Address();
    if (!shim_.empty()) {
      const char* inherited = std::getenv("LD_PRELOAD");
      r.env["LD_PRELOAD"] = shim_.string() + (inherited && *inherited ? std::string(":") + inherited : "");
      if (!options_.real_fsync) r.env["KILLPOINT_SKIP_FSYNC"] = "1";
    }
    r.cwd = sandbox_.work();
    r.stdout_path = sandbox_.logs() / (log_name + ".out");
    r.stderr_path = sandbox_.logs() / (log_name + ".err");
    r.max_file_bytes = scenario_.job.max_file_bytes;  // the sandbox's size limit (issue 7)
    return r;
  }

  // The shim waits for an answer only where this attempt may be stopped, and reports every
  // other point one way (protocol v1.2); a tracked attempt also waits at every operation the
  // durability tracker must see while the job is held.
  static void ArmShim(SpawnRequest& r, const AttemptFault& fault, bool track) {
    r.env["KILLPOINT_ARMED"] = fault.kill_point;
    if (track) r.env["KILLPOINT_WAIT_OPS"] = DurabilityTracker::kWaitOps;
  }

  Status FindShim() {
    if (!scenario_.UsesShim()) return Ok();
    shim_ = options_.bindir / "libkillpoint_shim.so";
    if (fs::exists(shim_)) return Ok();
    return Error::BadInput(scenario_.file.string() + ": syscall points and the models other than process need " +
                           shim_.string() + ", which is missing");
  }

  // After a kill: what the persistence model lets survive replaces the sandbox.
  Status ApplyModel(const AttemptFault& fault, int attempt) {
    if (fault.model == kModelProcess || !scenario_.UsesShim() || fault.kill_point.empty()) return Ok();
    uint64_t seed = plan_.seed ^ (static_cast<uint64_t>(plan_.trial) << 20) ^ static_cast<uint64_t>(attempt);
    auto changes = durability_.Apply(fault.model, seed);
    if (!changes) return changes.error();
    history_.Add(event::kRollback, {{"model", fault.model}, {"changes", changes.value()}});
    return Ok();
  }

  Status RunSetup() {
    if (scenario_.job.setup.empty()) return Ok();
    SpawnRequest r = Request(scenario_.job.setup, "", 0, "setup");
    auto process = Spawn(r);
    if (!process) return Error::BadInput(scenario_.file.string() + ": job.setup: " + process.error().message);
    ExitStatus status = process.value()->Wait(std::chrono::milliseconds(scenario_.job.timeout_ms));
    std::string err = Tail(r.stderr_path, kStderrTail);
    history_.Add(event::kSetup, {{"exit_code", status.ShellCode()}, {"stderr", err}});
    if (status.exited && status.code == 0) return Ok();
    return Error::BadInput(scenario_.file.string() + ": job.setup " + status.Describe() + ": " + err);
  }

  // Runs one firing of the scheduler with its retries; true when an attempt succeeded.
  Result<bool> RunWithRetries(const std::string& date, int trigger, const PlannedRun* planned) {
    for (int attempt = 1; attempt <= scenario_.retry.max_attempts; ++attempt) {
      if (attempt > 1) {
        history_.SetContext({date, trigger, attempt - 1});
        int64_t delay = scenario_.retry.DelayBeforeAttempt(attempt);
        history_.Add(event::kRetryWait, {{"delay_ms", delay}, {"next_attempt", attempt}});
        history_.AdvanceClock(delay);
      }
      static const AttemptFault kNoFault;
      auto ok = RunAttempt(date, trigger, attempt, planned ? planned->FaultFor(attempt) : kNoFault);
      if (!ok || ok.value()) return ok;
    }
    history_.Add(event::kGiveUp, {{"attempts", scenario_.retry.max_attempts}});
    return false;
  }

  Result<bool> RunAttempt(const std::string& date, int trigger, int attempt, const AttemptFault& fault) {
    history_.SetContext({date, trigger, attempt});
    std::string log = date + "-t" + std::to_string(trigger) + "-a" + std::to_string(attempt);
    SpawnRequest r = Request(scenario_.job.command, date, attempt, log);
    // Only a kill under a model other than process reads what the tracker records.
    bool track = scenario_.UsesShim() && !fault.kill_point.empty() && fault.model != kModelProcess;
    if (track) {
      if (Status s = durability_.Begin(sandbox_.work()); !s) return s.error();
    }
    if (!shim_.empty() && !options_.every_point_waits) ArmShim(r, fault, track);
    attempt_.Arm(fault, track);
    downstream_->ArmFault(fault.downstream_fault);
    auto process = Spawn(r);
    if (!process) {
      attempt_.Finish();
      return Error::BadInput(scenario_.file.string() + ": job.command: " + process.error().message);
    }
    history_.Add(event::kSpawn, {{"pid", process.value()->pid()}, {"fault", fault}});
    attempt_.Attach(process.value().get());
    ExitStatus status = process.value()->Wait(std::chrono::milliseconds(scenario_.job.timeout_ms));
    // One-way reports may still be in flight: record them in this attempt, before its exit.
    if (!shim_.empty()) channel_->WaitIdle(kDrainTimeout);
    bool killed = attempt_.Finish();
    downstream_->ReleaseHeld();
    downstream_->ArmFault("");
    if (status.timed_out) history_.Add(event::kTimeout, {{"timeout_ms", scenario_.job.timeout_ms}});
    nlohmann::json exit = {{"code", status.ShellCode()}, {"killed_by_harness", killed || status.timed_out},
                           {"stderr", Tail(r.stderr_path, kStderrTail)}};
    if (!status.exited) exit["signal"] = status.signal;
    history_.Add(event::kExit, exit);
    if (killed) {
      if (Status s = ApplyModel(fault, attempt); !s) return s.error();
    }
    return status.exited && status.code == 0;
  }

  Status FinalPass() {
    std::vector<std::string> pending;
    for (const auto& [date, ok] : succeeded_) {
      if (!ok) pending.push_back(date);
    }
    history_.SetContext({});
    history_.Add(event::kFinalPass, {{"biz_dates", pending}});
    for (const auto& date : pending) {
      auto ok = RunWithRetries(date, last_trigger_[date] + 1, nullptr);
      if (!ok) return ok.error();
    }
    return Ok();
  }

  const Scenario& scenario_;
  const Plan& plan_;
  const TrialOptions& options_;
  Sandbox sandbox_;
  History history_;
  DurabilityTracker durability_;
  AttemptState attempt_;
  fs::path shim_;  // the syscall shim, when the scenario uses it
  std::unique_ptr<Downstream> downstream_;
  std::unique_ptr<ControlChannel> channel_;
  std::map<std::string, bool> succeeded_;  // by date: did its last planned run succeed
  std::map<std::string, int> last_trigger_;
};

}  // namespace

Result<TrialRecord> RunTrial(const Scenario& scenario, const Plan& plan, const TrialOptions& options) {
  auto box = Sandbox::Create(options.sandbox_root, "trial-" + std::to_string(plan.trial) + "-");
  if (!box) return box.error();
  TrialDriver driver(scenario, plan, options, std::move(box.value()));
  return driver.Run();
}

}  // namespace killpoint
