#include "run/trial_runner.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <string_view>

#include "channel/control_channel.h"
#include "downstream/downstream.h"
#include "durability/durability.h"
#include "durability/model_registry.h"
#include "history/event_registry.h"
#include "history/history.h"
#include "plan/crash_point.h"
#include "plan/point_pattern.h"
#include "plan/retry_schedule.h"
#include "plan/seed.h"
#include "proc/interrupt.h"
#include "proc/process.h"
#include "run/attempt_state.h"
#include "run/hold_driver.h"
#include "run/placeholders.h"
#include "run/trial_services.h"
#include "scenario/net_point.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;

// Whether execvp would find `program` (a path taken from `cwd`, else a name on PATH).
bool Runnable(const std::string& program, const fs::path& cwd) {
  if (program.find('/') != std::string::npos) {
    fs::path p = fs::path(program).is_absolute() ? fs::path(program) : cwd / program;
    return ::access(p.c_str(), X_OK) == 0;
  }
  const char* path = std::getenv("PATH");
  std::string_view dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  for (;;) {
    size_t colon = dirs.find(':');
    std::string dir(dirs.substr(0, colon));
    if (::access(((dir.empty() ? "." : dir) + "/" + program).c_str(), X_OK) == 0) return true;
    if (colon == std::string_view::npos) return false;
    dirs.remove_prefix(colon + 1);
  }
}

constexpr size_t kStderrTail = 2048;
// How long the runner waits, once a job has exited, for the last one-way reports of its
// processes (a grandchild that outlives the job may hold its connection open longer).
constexpr std::chrono::milliseconds kDrainTimeout{2000};

std::string Tail(const fs::path& file, size_t max) {
  std::ifstream in(file, std::ios::binary);
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return s.size() > max ? "..." + s.substr(s.size() - max) : s;
}

// The exit event of a process that ended with `status`.
event::Exit ExitEvent(const ExitStatus& status, bool killed_by_harness, std::string stderr_tail,
                      std::optional<int> instance) {
  event::Exit exit;
  exit.code = status.ShellCode();
  if (!status.exited) exit.signal = status.signal;
  exit.stderr_tail = std::move(stderr_tail);
  exit.killed_by_harness = killed_by_harness;
  exit.instance = instance;
  return exit;
}

class TrialDriver {
 public:
  TrialDriver(const Scenario& s, const Plan& p, const TrialOptions& o, Sandbox box,
              TrialServices* services)
      : scenario_(s),
        plan_(p),
        options_(o),
        sandbox_(std::move(box)),
        attempt_(&history_, s.UsesShim() ? &durability_ : nullptr),
        services_(services) {
    attempt_.SetOutsidePlaces(OutsidePlacesOf());
    std::set<std::string> own = {s.check.db, s.check.db + "-journal", s.check.db + "-wal"};
    if (!s.check.state_file.empty()) own.insert(s.check.state_file);
    attempt_.KeepNames(std::move(own));
  }

  // Whatever way Run returned: the services let go of this trial before its history goes.
  ~TrialDriver() { DetachServices(); }

  Result<TrialRecord> Run() {
    auto started = std::chrono::steady_clock::now();
    history_.Add(event::TrialStart{plan_, sandbox_.root().string()});
    if (Status s = AttachServices(); !s) return s.error();
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
    history_.Add(
        event::TrialEnd{std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count()});
    DetachServices();  // nothing is recorded after this
    if (options_.keep_sandbox) sandbox_.Keep();
    return TrialRecord{plan_, history_.Events(), std::move(sandbox_), addresses_,
                       own_services_.servers};
  }

 private:
  // A worker's services (run/trial_services.h), or this trial's own when it has none.
  Status AttachServices() {
    if (services_ == nullptr) {
      auto started =
          TrialServices::Start(scenario_.services, options_.sandbox_root, options_.server_pool);
      if (!started) return started.error();
      own_services_ = std::move(started.value());
      services_ = &own_services_;
    }
    downstream_ = services_->downstream.get();
    channel_ = services_->channel.get();
    if (services_->servers) {  // a clean state for this trial (docs/services.md)
      auto addresses = services_->servers->Reset();
      if (!addresses) return addresses.error();
      addresses_ = std::move(addresses.value());
      job_addresses_ = services_->servers->ThroughProxies(addresses_);
      services_->servers->SetCommandHook(  // its command points (docs/services.md)
          [this](const std::string& point, bool after, uint64_t ticket) {
            return attempt_.OnNetCommand(point, after, ticket, options_.every_point_waits);
          });
    }
    downstream_->Attach(scenario_.downstream.dedupe, &history_,
                        scenario_.downstream.dedupe_by == kDedupeByIdempotencyKey);
    channel_->Reset([this](const FailpointHit& h) { return attempt_.OnHit(h); });
    downstream_->SetPointHook(
        [this](const std::string& point) {  // its crash points (downstream/downstream.h)
          return attempt_.OnDownstreamPoint(point, options_.every_point_waits);
        });
    return Ok();
  }

  // The trial's sandbox folder and the temporary folders, for the writes outside the sandbox.
  OutsidePlaces OutsidePlacesOf() const {
    std::error_code ec;
    OutsidePlaces places{{sandbox_.root()}, {}};
    fs::path real = fs::canonical(sandbox_.root(), ec);
    if (!ec && real != sandbox_.root()) places.sandbox_roots.push_back(real);
    auto tmpdir = scenario_.job.env.find("TMPDIR");
    places.temp_folders = TempFolders(tmpdir == scenario_.job.env.end() ? "" : tmpdir->second);
    return places;
  }

  void DetachServices() {
    if (channel_ == nullptr) return;
    // The proxies' fault reports name this trial's history: none once it goes.
    if (services_->servers) {
      services_->servers->DisarmNet();
      services_->servers->SetCommandHook(nullptr);
    }
    channel_->Reset({});
    downstream_->Detach();
    channel_ = nullptr;
    downstream_ = nullptr;
  }

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
    r.env = ServiceEnv(job_addresses_);  // the scenario's env may override them
    for (const auto& [k, v] : scenario_.job.env) r.env[k] = Substitute(v, vars);
    r.env["KILLPOINT_WORKDIR"] = sandbox_.work().string();
    r.env["KILLPOINT_BIZ_DATE"] = date;
    r.env["KILLPOINT_ATTEMPT"] = std::to_string(attempt);
    r.env["KILLPOINT_DOWNSTREAM"] = downstream_->BaseUrl();
    r.env["KILLPOINT_CTL"] = channel_->Address();
    if (!shim_.empty()) Intercept(r);
    r.cwd = sandbox_.work();
    r.stdout_path = sandbox_.logs() / (log_name + ".out");
    r.stderr_path = sandbox_.logs() / (log_name + ".err");
    r.max_file_bytes = scenario_.job.max_file_bytes;  // the sandbox's size limit (issue 7)
    if (int64_t reserve = RamReserve(sandbox_.work()); reserve > 0) {
      r.watch_free = sandbox_.work();  // and their total, in RAM (issue 34)
      r.min_free_bytes = reserve;
    }
    r.stop = options_.stop;
    return r;
  }

  // The job runs under the scenario's interceptor: the supervisor wraps its command (unless the
  // command cannot be found: the spawner then says so, as without it), the shim is preloaded.
  void Intercept(SpawnRequest& r) const {
    if (!options_.real_fsync) r.env["KILLPOINT_SKIP_FSYNC"] = "1";
    if (options_.intercept == Interception::kSeccomp) {
      if (!r.argv.empty() && Runnable(r.argv[0], r.cwd)) {
        r.argv.insert(r.argv.begin(), {shim_.string(), "--"});
      }
      return;
    }
    const char* inherited = std::getenv("LD_PRELOAD");
    r.env["LD_PRELOAD"] =
        shim_.string() + (inherited && *inherited ? std::string(":") + inherited : "");
  }

  // The shim waits for an answer only where this attempt may be stopped, and reports every
  // other point one way (protocol v1.2); a tracked attempt also waits at every operation the
  // durability tracker must see while the job is held.
  // A pause or overlap at a syscall point needs that point to wait too: the attempt then runs
  // with every point waiting (protocol v1.1), as KILLPOINT_ARMED names one point only.
  // A pattern or a temporary file's alias is no name the shim knows: every point of the ops
  // it may match waits instead (plan/point_pattern.h), or every point when that is all ops.
  void ArmShim(SpawnRequest& r, const AttemptFault& fault, bool track) const {
    // The tracker's journal, when it keeps one: the interceptor records what each sync makes
    // durable.
    if (track && !durability_.journal().empty())
      r.env["KILLPOINT_SHADOW"] = durability_.journal().string();
    if (IsSyscallPoint(fault.pause.point) || IsSyscallPoint(fault.overlap.point) ||
        IsSyscallPoint(fault.server.point))
      return;
    std::string wait_ops = track ? durability_.WaitOps() : "";
    const std::string& point = fault.kill_point;
    if (IsPointPattern(point) || point.find('<') != std::string::npos) {
      std::vector<std::string> ops = OpsMatching(point);
      if (ops.size() == kSyscallOps.size()) return;
      for (const std::string& op : ops) wait_ops += (wait_ops.empty() ? "" : ",") + op;
      r.env["KILLPOINT_ARMED"] = "";
    } else {
      r.env["KILLPOINT_ARMED"] = point;
    }
    if (!wait_ops.empty()) r.env["KILLPOINT_WAIT_OPS"] = wait_ops;
  }

  // The harness got SIGINT/SIGTERM (options_.stop) before or while an attempt ran: the trial
  // is abandoned, unrecorded.
  Error Interrupted() const {
    return Error::Harness(std::string("interrupted by ") + InterruptName(options_.stop.signal()));
  }

  Status FindShim() {
    if (!scenario_.LoadsShim()) return Ok();
    if (options_.intercept == Interception::kSeccomp) {
      if (Status s = SeccompAvailable(); !s) return s.error();
    }
    shim_ = InterceptorPath(options_.intercept, options_.bindir);
    std::error_code ec;
    if (fs::exists(shim_, ec)) return Ok();
    return Error::BadInput(
        scenario_.file.string() +
        ": syscall points, the models other than process and writes_in_sandbox need " +
        shim_.string() + ", which is missing");
  }

  // After a kill: what the persistence model lets survive replaces the sandbox.
  Status ApplyModel(const AttemptFault& fault, int attempt) {
    if (!durability::Rewrites(fault.model) || !scenario_.UsesShim() || fault.kill_point.empty())
      return Ok();
    // Drawn by the planner (plan/seed.h); a plan of before has none: the seed it ran with.
    uint64_t seed =
        fault.model_seed.value_or(DeriveSeed(plan_.seed, scenario_.name, plan_.trial,
                                             SeedPurpose::kModelSeedOfOldPlans, {{}, 0, attempt}));
    auto changes = durability_.Apply(fault.model, seed);
    if (!changes) return changes.error();
    history_.Add(event::Rollback{fault.model, attempt_.WithAliases(changes.value())});
    return Ok();
  }

  // What a reader sees between two attempts: the scenario's after_every_crash checks on the
  // sandbox the model left, or on the services as the killed attempt left them (their servers
  // outlive the job), recorded beside the kill they follow (docs/scenarios.md, docs/services.md).
  // With keep_sandbox, a crash state a check found broken stays in crash-state-<log>/<check>/.
  Status CheckCrashState(const AttemptFault& fault, const std::string& log) {
    const auto& checks = scenario_.checks;
    if (!options_.crash_checks || std::none_of(checks.begin(), checks.end(), [](const auto& c) {
          return c.second.after_every_crash;
        })) {
      return Ok();
    }
    fs::path scratch = sandbox_.root() / "crash-state";
    std::error_code ignored;
    fs::remove_all(scratch, ignored);
    auto verdicts = options_.crash_checks(scenario_, sandbox_.work(), scratch, addresses_);
    if (!verdicts) return verdicts.error();
    const nlohmann::json& all = verdicts.value();
    bool broken = std::any_of(all.begin(), all.end(),
                              [](const nlohmann::json& v) { return !v.value("held", true); });
    if (broken && options_.keep_sandbox) {  // what the reader saw, to open with sqlite3
      fs::rename(scratch, sandbox_.root() / ("crash-state-" + log), ignored);
    }
    fs::remove_all(scratch, ignored);
    event::CrashCheck check;
    check.model = fault.model;
    check.verdicts = verdicts.value();
    std::vector<event::Kill> kills = AllOf<event::Kill>(history_.Events());
    if (!kills.empty()) {
      check.point = kills.back().point;
      check.hit = kills.back().hit;
    }
    history_.Add(check);
    return Ok();
  }

  Status RunSetup() {
    if (scenario_.job.setup.empty()) return Ok();
    if (options_.stop.stop_requested()) return Interrupted();
    SpawnRequest r = Request(scenario_.job.setup, "", 0, "setup");
    auto process = options_.spawner->Spawn(r);
    if (!process)
      return Error::BadInput(scenario_.file.string() + ": job.setup: " + process.error().message);
    ExitStatus status = process.value()->Wait(std::chrono::milliseconds(scenario_.job.timeout_ms));
    if (status.interrupted) return Interrupted();
    std::string err = Tail(r.stderr_path, kStderrTail);
    history_.Add(event::Setup{status.ShellCode(), err});
    if (status.exited && status.code == 0) {
      // What the setup wrote is on the servers' disks, as long before the job (Settle).
      return services_->servers ? services_->servers->Settle() : Ok();
    }
    return Error::BadInput(scenario_.file.string() + ": job.setup " + status.Describe() + ": " +
                           err);
  }

  // Runs one firing of the scheduler with its retries; true when an attempt succeeded.
  // Waits are virtual (docs/retry.md): the backoff before a retry, then whatever the rate
  // limit and the circuit breaker add before any attempt, each a retry_wait with its reason.
  Result<bool> RunWithRetries(const std::string& date, int trigger, const PlannedRun* planned) {
    const RetryPolicy& policy = scenario_.retry;
    int64_t previous = policy.initial_interval_ms;
    for (int attempt = 1; attempt <= policy.max_attempts; ++attempt) {
      history_.SetContext({date, trigger, attempt - 1});
      if (attempt > 1) {
        PlanRng rng(DeriveSeed(plan_.seed, scenario_.name, plan_.trial, SeedPurpose::kRetryJitter,
                               {date, trigger, attempt}));
        previous = DrawDelay(policy, attempt, previous, rng);
        Wait(previous, attempt, WaitReason::kBackoff);
      }
      Gate(attempt);
      static const AttemptFault kNoFault;
      auto ok = RunAttempt(date, trigger, attempt, planned ? planned->FaultFor(attempt) : kNoFault);
      if (!ok) return ok;
      RecordBreaker(breaker_.OnResult(ok.value(), history_.Now()));
      if (ok.value()) return ok;
      if (int code = LastExitCode(); IsNonRetryable(code)) {
        history_.Add(event::NonRetryable{code, attempt});
        return false;
      }
    }
    history_.Add(event::GiveUp{policy.max_attempts});
    return false;
  }

  void Wait(int64_t delay, int next_attempt, WaitReason reason) {
    history_.Add(event::RetryWait{delay, next_attempt, reason});
    history_.AdvanceClock(delay);
  }

  // Scheduler-wide: the rate limit and the breaker may hold any attempt back.
  void Gate(int attempt) {
    int64_t now = history_.Now();
    if (int64_t at = rate_.EarliestStart(now); at > now)
      Wait(at - now, attempt, WaitReason::kRateLimit);
    now = history_.Now();
    if (int64_t at = breaker_.EarliestStart(now); at > now)
      Wait(at - now, attempt, WaitReason::kBreakerOpen);
    // The breaker's wait may have taken the window past a start; a start never needs both.
    rate_.Record(history_.Now());
    RecordBreaker(breaker_.OnStart(history_.Now()));
  }

  void RecordBreaker(const std::vector<BreakerTransition>& transitions) {
    for (const auto& t : transitions) {
      history_.Add(event::Breaker{ToString(t.from), ToString(t.to)});
    }
  }

  bool IsNonRetryable(int code) const {
    const auto& codes = scenario_.retry.non_retryable_exit_codes;
    return std::find(codes.begin(), codes.end(), code) != codes.end();
  }

  // The exit code of the attempt that just ended; -1 when it was killed by a signal.
  int LastExitCode() const {
    if (scenario_.retry.non_retryable_exit_codes.empty()) return -1;
    std::vector<event::Exit> exits = AllOf<event::Exit>(history_.Events());
    return exits.empty() ? -1 : static_cast<int>(exits.back().ExitCode());
  }

  Result<bool> RunAttempt(const std::string& date, int trigger, int attempt,
                          const AttemptFault& fault) {
    if (options_.stop.stop_requested()) return Interrupted();  // no attempt starts once stopped
    history_.SetContext({date, trigger, attempt});
    std::string log = date + "-t" + std::to_string(trigger) + "-a" + std::to_string(attempt);
    SpawnRequest r = Request(scenario_.job.command, date, attempt, log);
    // Only a kill under a model that rewrites the sandbox (not process) reads what the tracker
    // records.
    bool track =
        scenario_.UsesShim() && !fault.kill_point.empty() && durability::Rewrites(fault.model);
    if (track) {
      // ArmShim hands the journal to the interceptor (the shim or the supervisor).
      fs::path journal =
          shim_.empty() || options_.every_point_waits ? fs::path{} : sandbox_.root() / "durability";
      if (Status s = durability_.Begin(sandbox_.work(), fault.model, journal); !s) return s.error();
    }
    if (!shim_.empty() && !options_.every_point_waits) ArmShim(r, fault, track);
    r.env["KILLPOINT_INSTANCE"] = "1";
    attempt_.Arm(fault, track);
    downstream_->ArmFault(fault.downstream_fault);
    if (fault.downstream_burst > 0) downstream_->ArmBurst(fault.downstream_burst);
    ArmNet(fault.net);
    int refused_before = channel_ ? channel_->RefusedPeers() : 0;
    auto process = options_.spawner->Spawn(r);
    if (!process) {
      attempt_.Finish();
      return Error::BadInput(scenario_.file.string() + ": job.command: " + process.error().message);
    }
    history_.Add(event::Spawn{process.value()->pid(), fault, std::nullopt});
    attempt_.Attach(process.value().get());
    std::unique_ptr<HoldDriver> holds =
        StartHolds(fault, process.value().get(), date, attempt, log, track);
    ExitStatus status = process.value()->Wait(std::chrono::milliseconds(scenario_.job.timeout_ms));
    if (holds) {  // the overlap's second instance has ended too once Finish returned
      if (Status s = holds->Finish(); !s) {
        attempt_.Finish();
        return s.error();
      }
    }
    downstream_->WaitPoints(kDrainTimeout);  // an answer's after_answer counts in this attempt
    // One-way reports may still be in flight: record them in this attempt, before its exit.
    if (!shim_.empty() && !status.interrupted) channel_->WaitIdle(kDrainTimeout);
    if (int refused = channel_ ? channel_->RefusedPeers() - refused_before : 0; refused > 0)
      history_.Add(event::PeerRefused{refused});
    bool killed = attempt_.Finish();
    if (services_->servers) services_->servers->DisarmNet();
    if (status.interrupted) return Interrupted();
    downstream_->ReleaseHeld();
    downstream_->ArmFault("");
    if (status.timed_out) history_.Add(event::Timeout{scenario_.job.timeout_ms, std::nullopt});
    history_.Add(ExitEvent(status, killed || status.timed_out || status.sandbox_full,
                           Tail(r.stderr_path, kStderrTail), std::nullopt));
    if (killed) {
      if (Status s = ApplyModel(fault, attempt); !s) return s.error();
      if (Status s = CheckCrashState(fault, log); !s) return s.error();
    }
    return status.exited && status.code == 0;
  }

  // The attempt's network fault (docs/services.md): the proxy of its point's service applies it
  // and the history records it, in the attempt, when it does.
  void ArmNet(const NetFault& net) {
    auto point = ParseNetPoint(net.point);
    if (!point || !services_->servers) return;
    services_->servers->ArmNet(
        point->service, {point->moment, net.action, net.hit, net.ms},
        [this, net](const ProxyFault&) {
          history_.Add(event::NetFault{net.point, net.action, net.hit,
                                       net.ms > 0 ? std::optional<int64_t>(net.ms) : std::nullopt});
        });
  }

  // Pauses, overlaps and server faults of the attempt (docs/faults.md, docs/services.md),
  // carried out while it runs; null when it has none. The second instance of an overlap runs the
  // same command for the same date and attempt with KILLPOINT_INSTANCE=2, its own logs (<log>-i2),
  // and no kill; a third (docs/faults.md, "Three instances") likewise with 3 and <log>-i3.
  std::unique_ptr<HoldDriver> StartHolds(const AttemptFault& fault, RunningProcess* first,
                                         const std::string& date, int attempt,
                                         const std::string& log, bool track) {
    server_faulter_.reset();
    auto spec = scenario_.services.find(fault.server.service);
    if (!fault.server.point.empty() && services_->servers && spec != scenario_.services.end()) {
      server_faulter_ = std::make_unique<ServerFaulter>(fault.server, spec->second,
                                                        services_->servers.get(), &history_);
    }
    if (fault.pause.point.empty() && fault.overlap.point.empty() && !server_faulter_)
      return nullptr;
    // The second is armed at its hold point (docs/faults.md, "Three instances"), the third at
    // nothing.
    AttemptFault second_armed;
    second_armed.kill_point = fault.overlap.second_holds_at;
    std::map<int, SpawnRequest> instances;
    for (int instance : {2, 3}) {
      SpawnRequest r =
          Request(scenario_.job.command, date, attempt, log + "-i" + std::to_string(instance));
      if (!shim_.empty() && !options_.every_point_waits)
        ArmShim(r, instance == 2 ? second_armed : AttemptFault{}, track);
      r.env["KILLPOINT_INSTANCE"] = std::to_string(instance);
      instances.emplace(instance, std::move(r));
    }
    SecondInstance hooks;
    Spawner* spawner = options_.spawner;
    hooks.spawn = [instances, spawner](int instance) -> Result<std::unique_ptr<RunningProcess>> {
      auto process = spawner->Spawn(instances.at(instance));
      if (!process) {
        return Error::Harness(std::string("the overlap's ") + (instance == 2 ? "second" : "third") +
                              " instance did not start: " + process.error().message);
      }
      return std::move(process.value());
    };
    hooks.exited = [this, instances](int instance, const ExitStatus& status) {
      if (status.timed_out) history_.Add(event::Timeout{scenario_.job.timeout_ms, instance});
      history_.Add(ExitEvent(status, status.timed_out,
                             Tail(instances.at(instance).stderr_path, kStderrTail), instance));
    };
    hooks.timeout = std::chrono::milliseconds(scenario_.job.timeout_ms);
    // A hold at a command to a service (docs/services.md, "Command points") is the proxy's.
    HoldAnswer answer = [this](uint64_t connection, const HitAnswer& a) {
      if (!ServiceSet::IsCommandTicket(connection)) return channel_->Answer(connection, a);
      if (services_->servers) services_->servers->ReleaseCommand(connection, StepOf(a));
    };
    return std::make_unique<HoldDriver>(fault, &attempt_, answer, downstream_, &history_, first,
                                        std::move(hooks), options_.stop, server_faulter_.get());
  }

  Status FinalPass() {
    downstream_->ArmBurst(0);  // faults stopped: what is left of a burst goes with them
    std::vector<std::string> pending;
    for (const auto& [date, ok] : succeeded_) {
      if (!ok) pending.push_back(date);
    }
    history_.SetContext({});
    history_.Add(event::FinalPass{pending});
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
  fs::path shim_;  // the shim or the supervisor (options_.intercept), when the scenario uses it
  TrialServices* services_;  // the worker's, or &own_services_
  TrialServices own_services_;
  std::unique_ptr<ServerFaulter> server_faulter_;  // the attempt's server fault, for its holds
  ServiceAddresses addresses_;                     // the scenario's services for this trial
  ServiceAddresses job_addresses_;         // the same through their fault proxies: the job's
  Downstream* downstream_ = nullptr;       // services_'s while attached
  ControlChannel* channel_ = nullptr;      // services_'s while attached
  std::map<std::string, bool> succeeded_;  // by date: did its last planned run succeed
  std::map<std::string, int> last_trigger_;
  RateWindow rate_{scenario_.retry.rate_limit};       // scheduler-wide, on the virtual clock
  Breaker breaker_{scenario_.retry.circuit_breaker};  // scheduler-wide, on the virtual clock
};

}  // namespace

Result<TrialRecord> RunTrial(const Scenario& scenario, const Plan& plan,
                             const TrialOptions& options, TrialServices* services) {
  auto box = Sandbox::Create(options.sandbox_root, "trial-" + std::to_string(plan.trial) + "-");
  if (!box) return box.error();
  TrialDriver driver(scenario, plan, options, std::move(box.value()), services);
  return driver.Run();
}

}  // namespace killpoint
