// What the control channel needs to know about the attempt that is running: the process to
// kill, where and when, and the durability tracker to tell about syncs. Shared by the runner
// thread and the control channel's thread.
#pragma once

#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "channel/control_channel.h"
#include "channel/outside_path.h"
#include "channel/temp_names.h"
#include "durability/durability.h"
#include "history/history.h"
#include "plan/plan.h"
#include "proc/process.h"
#include "run/mid_cut.h"
#include "service/tcp_proxy.h"

namespace killpoint {

// A job may pass any number of points under any names: a hostile one made 3,381 names in one
// attempt, a loop makes millions of hits. The history of an attempt (each instance) keeps the
// hits of its first kMaxPointNames names (and as many paths written outside the sandbox), and
// of those at most kMaxPointEvents failpoint events; the rest are counted into one
// points_dropped event. A point the attempt's fault names (its
// kill, pause or overlap point, every match of a kill pattern until it fired) is always
// recorded, and the durability tracker hears of every operation: the caps change what the
// history shows, never what a trial does.
inline constexpr size_t kMaxPointNames = 1000;
inline constexpr int kMaxPointEvents = 20000;

// What the fault proxy does with a command after a hit's answer: kAfter asks again after its
// answer, kHold holds it, kKilled drops it; anything else forwards it.
CommandStep StepOf(const HitAnswer& answer);

class AttemptState {
 public:
  // `durability` may be null (no syscall points: syncs are not seen). Both must outlive this.
  AttemptState(History* history, DurabilityTracker* durability)
      : history_(history), durability_(durability) {}

  // The runner arms the attempt before spawning it and attaches the process once Spawn has
  // returned; a hit that arrives in between waits for the attach, so no planned kill is missed.
  // `track`: feed the durability tracker this attempt (only a kill under a model other than
  // process ever uses what it records).
  void Arm(const AttemptFault& fault, bool track);
  void Attach(RunningProcess* process);
  // Where the trial's sandbox and the temporary folders are, to name the writes outside the
  // sandbox (channel/outside_path.h). Before the first attempt.
  void SetOutsidePlaces(OutsidePlaces places);
  // The sandbox paths the scenario names as the job's state: never temporary (TempNames::Keep).
  // Before the first attempt.
  void KeepNames(std::set<std::string> paths);
  // Detaches the process and records the points passed one way and the writes outside the
  // sandbox (an outside_writes event); returns whether the planned kill happened. Call it once
  // the control channel is idle (ControlChannel::WaitIdle).
  bool Finish();

  // Control channel handler: records the hit, tells the tracker about the file operations the
  // job is let through to, and kills the process before, after or in the middle of the point.
  // A point on a temporary file goes by its alias (channel/temp_names.h) everywhere but in what
  // the tracker hears, which reads the real path. A pattern kill_point (plan/point_pattern.h)
  // fires at its occurrence-th hit of any point it matches.
  // At the first hit of a planned pause or overlap point it holds the job (kHold) instead.
  HitAnswer OnHit(const FailpointHit& hit);

  // A rollback's lines ("PATH: what the model did") with each temporary file's path under its
  // alias (TempNames::Known), as every other event names it.
  std::vector<std::string> WithAliases(std::vector<std::string> changes);

  // The downstream's handler at one of its crash points (downstream/downstream.h): a hit like the
  // shim's, killed before (or, planned "after", right after) the moment; returns whether it
  // killed. Recorded as a failpoint event only where the planned kill may fall, or with
  // `record_all` (discovery: every point, in order); elsewhere it leaves no trace (a publishing
  // job's histories stay as they were). Pauses and overlaps never stop there.
  bool OnDownstreamPoint(const std::string& point, bool record_all);

  // The fault proxy's handler at a command a job sends to a service (service/tcp_proxy.h,
  // docs/services.md "Command points"), `point` its net:<service>:<verb>: a hit like the shim's,
  // killed before the command is forwarded, or, planned "after", asked again (`after`) once the
  // server answered it, and killed then; held (kHold, its `ticket` the hit's connection) at a
  // pause, overlap or second_holds_at point. Recorded where the attempt's fault names it, or with
  // `record_all`; outside an attempt, never.
  CommandStep OnNetCommand(const std::string& point, bool after, uint64_t ticket, bool record_all);

  // A job held at the first hit of a pause, overlap or server fault point (docs/faults.md), for the
  // HoldDriver to carry out; it is answered with Release.
  struct Hold {
    FailpointHit hit;
    int n = 0;  // which hit of the point
    bool pause = false;
    bool overlap = false;
    bool server = false;  // the attempt's server fault (docs/services.md, "Server faults")
    std::string real;     // the name the shim sent, before temporary files got their alias
    bool fires = false;   // the planned kill falls on this hit
  };
  // Blocks until a hold is pending (and hands it over) or StopHolds was called.
  std::optional<Hold> NextHold();
  void StopHolds();
  // The answer the held hit gets now: continue, or the planned kill if it falls on this hit.
  HitAnswer Release(const Hold& hold);
  // The second instance of an overlap: hits from its process group are its own (recorded with
  // instance 2, never killed, never counted as the first's). Call ExpectSecond before spawning
  // it, then SetSecond with its pid (0 if it could not start): hits wait in between, so that
  // none of the second's is taken for the first's.
  void ExpectSecond();
  void SetSecond(int pgid);
  // An overlap with second_holds_at (docs/faults.md, "Three instances"): from ExpectSecond on,
  // the second's first hit of that point is held (kHold) until CloseSecondHold, which ends the
  // window and returns the held hit's connection (nullopt: not held, and no later hit will be),
  // for the driver to answer once the third instance ran.
  bool SecondHeld();
  std::optional<uint64_t> CloseSecondHold();
  // The third instance, as ExpectSecond and SetSecond: its hits are recorded with instance 3.
  void ExpectThird();
  void SetThird(int pgid);
  // The second instance let go of from its hold (no hit of instance 3 is told apart by a
  // missing pid any more).
  void ReleasedSecond();

 private:
  int InstanceOf(const FailpointHit& hit) const;  // requires mu_
  // A hit of the second (2) or third (3) instance. Requires mu_.
  HitAnswer OtherHit(const FailpointHit& hit, const std::string& real, int instance);
  HitAnswer DoneHit(const FailpointHit& hit);  // requires mu_
  // Records the kill event and kills. `cut`: what a planned mid kill of a write did to it (the
  // bytes kept, or why the kill fell before it instead). Requires mu_.
  HitAnswer Kill(const FailpointHit& hit, int n, const std::optional<MidCut>& cut = std::nullopt);
  // Whether the history may record a hit of `name` (`known`: hit before in this attempt), as a
  // count or, `event`, as a failpoint event, within kMaxPointNames and kMaxPointEvents; counts
  // what it may not.
  bool Records(const std::string& name, bool known, bool event);  // requires mu_
  // The attempt's kill point (a pattern's matches until it fired), pause or overlap point.
  bool NamedByFault(const std::string& name) const;  // requires mu_
  // Whether the planned kill falls on the n-th hit of `name`; counts a pattern's hits.
  bool Fires(const std::string& name, int n);  // requires mu_
  HitAnswer Decide(const FailpointHit& hit, const std::string& real, int n,
                   bool fires);  // requires mu_

  std::mutex mu_;
  History* history_;
  DurabilityTracker* durability_;
  AttemptFault fault_;                 // guarded by mu_
  RunningProcess* process_ = nullptr;  // guarded by mu_
  std::map<std::string, int> hits_;    // guarded by mu_
  std::map<std::string, int> passed_;  // guarded by mu_: one-way hits (SEEN) by name
  std::map<std::string, std::string>
      unseen_;  // guarded by mu_: of those, unseen writes -> where noticed
  std::map<std::string, std::set<std::string>> outside_;  // guarded by mu_: path -> ops (v1.5)
  std::set<std::string> refused_;  // guarded by mu_: system calls the supervisor refused (v1.6)
  OutsidePlaces places_;           // guarded by mu_
  bool killed_ = false;            // guarded by mu_
  bool armed_ = false;             // guarded by mu_
  bool awaiting_done_ = false;     // guarded by mu_: let through, kill at its DONE
  std::string awaiting_real_, awaiting_name_;  // guarded by mu_: that point, as sent and as named
  FailpointHit awaiting_hit_;                  // guarded by mu_: its HIT, for the kill event
  std::optional<MidCut> awaiting_cut_;         // guarded by mu_: a mid kill's cut of it
  int pattern_hits_ = 0;                       // guarded by mu_: hits matching a pattern kill_point
  TempNames temp_names_;                       // guarded by mu_: the attempt's temporary files
  bool track_ = false;                         // guarded by mu_
  std::condition_variable attached_;
  // Pauses and overlaps, all guarded by mu_.
  bool pause_done_ = false;  // the planned pause has been held (at most once an attempt)
  bool overlap_done_ = false;
  bool server_done_ = false;
  std::optional<Hold> pending_;  // held, not yet taken by NextHold
  bool held_ = false;            // the first instance is held (from OnHit to Release)
  bool holds_stopped_ = false;
  int second_pgid_ = 0;
  bool expecting_second_ = false;               // or the third: hits wait until its pid is known
  std::map<std::string, int> hits2_, passed2_;  // the second instance's
  std::map<std::string, int> hits3_, passed3_;  // the third instance's
  // The second's hold (docs/faults.md, "Three instances"), all guarded by mu_.
  std::string second_holds_at_;          // the plan's point; empty: none
  bool second_hold_open_ = false;        // its first hit there is held
  std::optional<uint64_t> second_held_;  // the held hit's connection
  int third_pgid_ = 0;
  // The caps, all guarded by mu_: events recorded, hits left out, and the first name left out.
  int point_events_ = 0;
  int64_t dropped_hits_ = 0;
  std::string dropped_example_;
  std::condition_variable hold_cv_;
};

}  // namespace killpoint
