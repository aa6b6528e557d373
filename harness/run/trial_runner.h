// Executes one plan: setup, every planned run of the scheduler with its retries, kills at the
// planned failpoints, downstream faults, and a final fault-free pass for every date that did
// not succeed. Everything that happens is appended to the trial's history.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "channel/interception.h"
#include "history/event.h"
#include "plan/plan.h"
#include "proc/interrupt.h"
#include "proc/process.h"
#include "proc/stop_token.h"
#include "run/sandbox.h"
#include "scenario/scenario.h"
#include "service/service_set.h"
#include "util/result.h"

namespace killpoint {

struct TrialServices;

struct TrialOptions {
  std::filesystem::path bindir;        // {bindir}: where the reference jobs live
  std::filesystem::path sandbox_root;  // trials' sandboxes are created inside
  bool keep_sandbox = false;
  // Every syscall point waits for its answer and is recorded as it comes, in order with the
  // named ones (discovery). Otherwise the shim waits only where the attempt may be killed.
  bool every_point_waits = false;
  // Every fsync and fdatasync of a sandbox file reaches the kernel. Otherwise the shim answers
  // them itself (KILLPOINT_SKIP_FSYNC=1): the persistence models decide what a crash keeps.
  bool real_fsync = false;
  // What turns the job's file-system calls into crash points, for a scenario that needs them
  // (channel/interception.h): the command-line default is DefaultInterception().
  Interception intercept = Interception::kPreload;
  // Checks the crash state after every kill (check/checker.h's CheckCrashState, passed in
  // because run/ is below check/): `work` is the sandbox as the persistence model left it,
  // `scratch` an empty folder it may use, `services` the trial's servers as the killed attempt
  // left them. Answers the verdicts as JSON, recorded in a crash_check event. Empty: nothing is
  // checked between attempts (discovery, points).
  std::function<Result<nlohmann::json>(const Scenario&, const std::filesystem::path& work,
                                       const std::filesystem::path& scratch,
                                       const ServiceAddresses& services)>
      crash_checks = {};
  // The seam of the trial driver (issue 19): what starts the attempts (never null; it must
  // outlive the trial) and what stops the trial, which the driver checks before each spawn and
  // hands to every SpawnRequest (a stopped wait ends the trial with an "interrupted by" error).
  // The harness's defaults: real processes, its SIGINT/SIGTERM. A unit test gives a fake
  // spawner and a StopSource of its own (tests/harness/run/trial_driver_test.cc).
  Spawner* spawner = &PosixSpawner();
  // The run's servers that outlive a scenario (service/server_pool.h); null: every worker, and
  // every trial without one, starts its own and stops them when it is done.
  ServerPool* server_pool = nullptr;
  StopToken stop = InterruptToken();
};

// A finished trial. The sandbox stays on disk while this object lives, so that the checkers
// can read the job's final state.
struct TrialRecord {
  Plan plan;
  std::vector<Event> events;
  Sandbox sandbox;
  // Where the trial found the scenario's services (docs/services.md), for the checks; their
  // state stays until the worker's next trial resets them.
  ServiceAddresses services = {};
  // The servers the trial started itself (RunTrial without a worker's services), kept for its
  // checks; null otherwise.
  std::shared_ptr<ServiceSet> own_servers = {};
};

// Fails only when the trial could not be carried out (sandbox, sockets, a failed setup,
// a job that cannot be started); whatever the job does is recorded, not an error.
// `services`: a worker's downstream and control channel, reused from trial to trial
// (run/trial_services.h); null: the trial starts and stops its own.
Result<TrialRecord> RunTrial(const Scenario& scenario, const Plan& plan,
                             const TrialOptions& options, TrialServices* services = nullptr);

}  // namespace killpoint
