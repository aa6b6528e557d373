// retry_policy_respected (docs/retry.md): the scheduler's attempts and the job's own reported
// retries against the policies the scenario declares. Everything is read from the history.
#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "check/checker.h"
#include "history/event_registry.h"
#include "plan/retry_schedule.h"

namespace killpoint {
namespace {

constexpr const char* kRetryPolicy = "retry_policy_respected";
using Problem = std::optional<std::string>;

std::string Ms(int64_t ms) { return std::to_string(ms) + " ms"; }

std::string Firing(const Event& e) {
  return e.biz_date + (e.trigger > 1 ? " (firing " + std::to_string(e.trigger) + ")" : "");
}

bool Succeeded(const Event& exit) { return Read<event::Exit>(exit).Succeeded(); }

// The delay of a retry against the policy's bounds; `what` names the attempt.
Problem CheckDelay(const RetryPolicy& p, int attempt, int64_t previous, int64_t delay,
                   const std::string& what) {
  if (delay > p.maximum_interval_ms) {
    return what + " waited " + Ms(delay) + ", above the policy's maximum interval of " +
           Ms(p.maximum_interval_ms);
  }
  DelayBounds b = JitterBounds(p, attempt, previous);
  if (delay < b.lo) {
    return what + " came " + Ms(delay) + " after attempt " + std::to_string(attempt - 1) +
           "; the policy asks at least " + Ms(b.lo) + " (" +
           std::string(kJitterNames.NameOf(p.jitter)) + " jitter)";
  }
  if (delay > b.hi) {
    return what + " waited " + Ms(delay) + "; the policy's " +
           std::string(kJitterNames.NameOf(p.jitter)) + " jitter allows at most " + Ms(b.hi);
  }
  return std::nullopt;
}

// More than max_attempts starts within one window: the first start that breaks it.
Problem CheckRate(const RateLimit& limit, const std::vector<int64_t>& starts,
                  const std::string& whose) {
  if (limit.max_attempts <= 0) return std::nullopt;
  for (size_t i = 0; i < starts.size(); ++i) {
    size_t in_window = 0;
    for (size_t j = 0; j <= i; ++j) in_window += starts[i] - starts[j] < limit.window_ms ? 1 : 0;
    if (in_window > static_cast<size_t>(limit.max_attempts)) {
      return whose + " started " + std::to_string(in_window) + " attempts within " +
             Ms(limit.window_ms) + " (the last at " + Ms(starts[i]) + "); the rate limit allows " +
             std::to_string(limit.max_attempts);
    }
  }
  return std::nullopt;
}

// The scheduler's side, one event at a time.
class SchedulerCheck {
 public:
  explicit SchedulerCheck(const RetryPolicy& p) : p_(p) {}

  Problem Add(const Event& e) {
    // An overlap's second or third instance (docs/faults.md) is the harness's fault, not an
    // attempt the scheduler started: it has no place in the retry policy.
    if (InstanceOf(e) >= 2) return std::nullopt;
    if (e.type == event::RetryWait::kType) return Wait(e);
    if (e.type == event::Spawn::kType) return Spawn(e);
    if (e.type == event::Exit::kType) return Exit(e);
    if (e.type == event::Breaker::kType) return Transition(e);
    return std::nullopt;
  }

  Problem Finish() const { return CheckRate(p_.rate_limit, starts_, "the scheduler"); }

 private:
  struct FiringState {
    int attempts = 0;
    int64_t previous = 0;            // the last backoff delay
    std::optional<int64_t> backoff;  // the backoff recorded for the next attempt
    int64_t last_exit_ms = 0;
    std::optional<int> non_retryable;  // the code that should have stopped the firing
  };

  Problem Wait(const Event& e) {
    event::RetryWait wait = Read<event::RetryWait>(e);
    if (wait.reason != WaitReason::kBackoff) return std::nullopt;
    firings_[{e.biz_date, e.trigger}].backoff = wait.delay_ms;
    return std::nullopt;
  }

  Problem Spawn(const Event& e) {
    FiringState& f = firings_[{e.biz_date, e.trigger}];
    std::string what = "attempt " + std::to_string(e.attempt) + " of " + Firing(e);
    starts_.push_back(e.t_ms);
    if (f.attempts == 0) f.previous = p_.initial_interval_ms;
    ++f.attempts;
    if (f.non_retryable) {
      return what + " ran after attempt " + std::to_string(e.attempt - 1) + " exited with " +
             std::to_string(*f.non_retryable) + ", which the policy says is not retryable";
    }
    if (e.attempt > p_.max_attempts) {
      return what + " ran; the policy allows " + std::to_string(p_.max_attempts) + " attempts";
    }
    if (Problem p = Breaker(e, what)) return p;
    if (e.attempt < 2) return std::nullopt;
    int64_t gap = e.t_ms - f.last_exit_ms;
    int64_t delay = f.backoff.value_or(gap);
    if (!f.backoff) return CheckDelay(p_, e.attempt, f.previous, gap, what);
    f.backoff.reset();
    if (gap < delay) {
      return what + " came " + Ms(gap) + " after attempt " + std::to_string(e.attempt - 1) +
             " though its wait was " + Ms(delay);
    }
    Problem p = CheckDelay(p_, e.attempt, f.previous, delay, what);
    f.previous = delay;
    return p;
  }

  Problem Exit(const Event& e) {
    FiringState& f = firings_[{e.biz_date, e.trigger}];
    f.last_exit_ms = e.t_ms;
    bool ok = Succeeded(e);
    int code = static_cast<int>(Read<event::Exit>(e).ExitCode());
    const auto& codes = p_.non_retryable_exit_codes;
    if (!ok && std::find(codes.begin(), codes.end(), code) != codes.end()) f.non_retryable = code;
    if (p_.circuit_breaker.failure_threshold <= 0) return std::nullopt;
    if (ok) {
      failures_ = 0, probing_ = false;
    } else if (probing_ || ++failures_ >= p_.circuit_breaker.failure_threshold) {
      open_reason_ = probing_ ? "its half-open probe failed"
                              : std::to_string(failures_) + " consecutive failures";
      failures_ = 0, probing_ = false;
      open_until_ = e.t_ms + p_.circuit_breaker.open_ms;
      opened_at_ = e.t_ms;
    }
    return std::nullopt;
  }

  Problem Breaker(const Event& e, const std::string& what) {
    if (!open_until_) return std::nullopt;
    if (e.t_ms < *open_until_) {
      return what + " started at " + Ms(e.t_ms) +
             " while the circuit breaker was open (opened at " + Ms(opened_at_) + " after " +
             open_reason_ + ", open until " + Ms(*open_until_) + ")";
    }
    open_until_.reset();
    probing_ = true;
    return std::nullopt;
  }

  // The recorded transitions must follow the breaker's state machine.
  Problem Transition(const Event& e) {
    auto [from, to] = Read<event::Breaker>(e);
    bool legal = (from == "closed" && to == "open") || (from == "open" && to == "half_open") ||
                 (from == "half_open" && (to == "closed" || to == "open"));
    if (from != state_ || !legal) {
      return "the circuit breaker went from " + from + " to " + to + " at " + Ms(e.t_ms) +
             " while it was " + state_;
    }
    state_ = to;
    return std::nullopt;
  }

  const RetryPolicy& p_;
  std::map<std::pair<std::string, int>, FiringState> firings_;
  std::vector<int64_t> starts_;
  int failures_ = 0;
  bool probing_ = false;
  std::optional<int64_t> open_until_;
  int64_t opened_at_ = 0;
  std::string open_reason_;
  std::string state_ = "closed";
};

// The job's reported in-process retries, grouped by the scheduler attempt that made them.
class JobCheck {
 public:
  explicit JobCheck(const RetryPolicy& p) : p_(p) {}

  Problem Add(const Event& e) {
    if (e.type == event::Query::kType || e.type == event::Publish::kType) return Reload(e);
    if (e.type != event::JobRetry::kType) return std::nullopt;
    const event::JobRetry r = Read<event::JobRetry>(e);
    Group& g = groups_[{e.biz_date, e.trigger, e.attempt, r.key}];
    int attempt = static_cast<int>(r.attempt);
    g.unreloaded = p_.reload_before_retry ? attempt : 0;
    int64_t backoff = r.backoff_ms;
    int64_t delay = r.delay_ms;
    std::string where = (r.key.empty() ? "?" : r.key) + " (in scheduler attempt " +
                        std::to_string(e.attempt) + " of " + Firing(e) + ")";
    std::string what = "the job's attempt " + std::to_string(attempt) + " of " + where;
    if (attempt < 2 || attempt != g.last + 1) {
      return what + " was reported after attempt " + std::to_string(g.last) +
             "; attempts count up from 2";
    }
    g.last = attempt;
    if (g.previous < 0) g.previous = p_.initial_interval_ms;
    if (attempt > p_.max_attempts) {
      return what + " ran; the job's policy allows " + std::to_string(p_.max_attempts) +
             " attempts";
    }
    const std::string& breaker = r.breaker;
    if (breaker == "open") return what + " went while its circuit breaker was open";
    const int64_t at = r.at_ms;
    if (Problem p = BreakerOpened(attempt, breaker, at - g.starts.back(), what)) return p;
    if (delay < backoff)
      return what + " waited " + Ms(delay) + ", less than its own backoff of " + Ms(backoff);
    Problem p = CheckDelay(p_, attempt, g.previous, backoff, what);
    g.previous = backoff;
    g.starts.push_back(at);
    if (p) return p;
    return CheckRate(p_.rate_limit, g.starts, "the job for " + where);
  }

 private:
  // Every reported retry follows a failure of the attempt before it, so attempt n of a group
  // comes after n - 1 consecutive failures. From `failure_threshold` of them on, the job's
  // breaker is open: the attempt is its half-open probe and starts `open_ms` after the failure
  // that opened it, so at least that long after the previous attempt started. The job's
  // own word ("breaker") is not trusted alone: the timing is checked too.
  Problem BreakerOpened(int attempt, const std::string& breaker, int64_t since_previous_start,
                        const std::string& what) const {
    const CircuitBreakerPolicy& b = p_.circuit_breaker;
    if (b.failure_threshold <= 0 || attempt - 1 < b.failure_threshold) return std::nullopt;
    std::string after = "after " + std::to_string(attempt - 1) +
                        " consecutive failures (its breaker opens at " +
                        std::to_string(b.failure_threshold) + ")";
    if (since_previous_start < b.open_ms) {
      return what + " started " + Ms(since_previous_start) + " after attempt " +
             std::to_string(attempt - 1) + " did, " + after + "; an open breaker waits " +
             Ms(b.open_ms) + " before its probe";
    }
    if (breaker != "half_open") {
      return what + " reported its breaker '" + breaker + "' " + after +
             "; that attempt is the breaker's half-open probe";
    }
    return std::nullopt;
  }

  // With reload_before_retry: after a retry is reported, the key's next publish in that
  // scheduler attempt must come after a query of the key.
  Problem Reload(const Event& e) {
    // A query's and a publish's key.
    std::string key = Is<event::Query>(e) ? Read<event::Query>(e).key : Read<event::Publish>(e).key;
    auto it = groups_.find({e.biz_date, e.trigger, e.attempt, key});
    if (it == groups_.end() || it->second.unreloaded == 0) return std::nullopt;
    int attempt = std::exchange(it->second.unreloaded, 0);
    if (e.type == event::Query::kType) return std::nullopt;
    return "the job's attempt " + std::to_string(attempt) + " of " + (key.empty() ? "?" : key) +
           " (in scheduler attempt " + std::to_string(e.attempt) + " of " + Firing(e) +
           ") published again without asking the downstream first; its policy reloads before every "
           "retry";
  }

  struct Group {
    int unreloaded = 0;  // a retry reported and not yet followed by a query: its attempt
    int last = 1;
    int64_t previous = -1;           // the last backoff; -1: none yet
    std::vector<int64_t> starts{0};  // attempt 1 starts the job's clock
  };
  using Key = std::tuple<std::string, int, int, std::string>;

  const RetryPolicy& p_;
  std::map<Key, Group> groups_;
};

Verdict RetryPolicyRespected(const CheckInput& in) {
  SchedulerCheck scheduler(in.scenario.retry);
  std::optional<JobCheck> job;
  if (in.scenario.job_retry) job.emplace(*in.scenario.job_retry);
  int reported = 0;
  for (const Event& e : in.events) {
    if (Problem p = scheduler.Add(e)) return Verdict::Violated(kRetryPolicy, *p);
    if (e.type == event::JobRetry::kType) ++reported;
    if (!job) continue;
    if (Problem p = job->Add(e)) return Verdict::Violated(kRetryPolicy, *p);
  }
  if (Problem p = scheduler.Finish()) return Verdict::Violated(kRetryPolicy, *p);
  return Verdict::Held(kRetryPolicy,
                       "every attempt kept the scheduler's policy" +
                           std::string(job ? "; the job's " + std::to_string(reported) +
                                                 " in-process retries kept its own"
                                           : ""));
}

}  // namespace

void AddRetryCheckers(std::map<std::string, Checker>& out) {
  out[kRetryPolicy] = RetryPolicyRespected;
}

}  // namespace killpoint
