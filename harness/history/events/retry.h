// The scheduler's retries and the job's own (docs/retry.md).
#pragma once

#include <cstdint>
#include <string>
#include <tuple>

#include "history/event_fields.h"
#include "util/name_table.h"

namespace killpoint {

// Why the scheduler waited before an attempt (docs/retry.md).
enum class WaitReason { kBackoff, kRateLimit, kBreakerOpen };
inline constexpr auto kWaitReasonNames = MakeNameTable<WaitReason>(
    {
        {WaitReason::kBackoff, "backoff"},
        {WaitReason::kRateLimit, "rate_limit"},
        {WaitReason::kBreakerOpen, "breaker_open"},
    },
    "a retry wait's reason");
static_assert(kWaitReasonNames.Unique());
constexpr const auto& NamesOf(WaitReason) { return kWaitReasonNames; }

}  // namespace killpoint

namespace killpoint::event {

// The scheduler waited (virtual time) before an attempt.
struct RetryWait {
  static constexpr const char* kType = "retry_wait";
  int64_t delay_ms = 0;
  int64_t next_attempt = 0;
  WaitReason reason = WaitReason::kBackoff;
  static constexpr auto kFields = std::tuple{Field("delay_ms", &RetryWait::delay_ms),
                                             Field("next_attempt", &RetryWait::next_attempt),
                                             Field("reason", &RetryWait::reason)};
  bool operator==(const RetryWait&) const = default;
};

// The scheduler's circuit breaker changed state (closed, open, half_open).
struct Breaker {
  static constexpr const char* kType = "breaker";
  std::string from;
  std::string to;
  static constexpr auto kFields =
      std::tuple{Field("from", &Breaker::from), Field("to", &Breaker::to)};
  bool operator==(const Breaker&) const = default;
};

// An attempt exited with a code the policy does not retry: no attempt after it.
struct NonRetryable {
  static constexpr const char* kType = "non_retryable";
  int64_t code = 0;
  int64_t attempts = 0;
  static constexpr auto kFields =
      std::tuple{Field("code", &NonRetryable::code), Field("attempts", &NonRetryable::attempts)};
  bool operator==(const NonRetryable&) const = default;
};

// The scheduler gave the date up after its last attempt.
struct GiveUp {
  static constexpr const char* kType = "give_up";
  int64_t attempts = 0;
  static constexpr auto kFields = std::tuple{Field("attempts", &GiveUp::attempts)};
  bool operator==(const GiveUp&) const = default;
};

// The job reported one of its in-process retries (POST /retry).
struct JobRetry {
  static constexpr const char* kType = "job_retry";
  std::string key;
  int64_t attempt = 0;
  int64_t backoff_ms = -1;
  int64_t delay_ms = -1;
  int64_t at_ms = 0;
  std::string breaker = "closed";
  static constexpr auto kFields = std::tuple{Field("key", &JobRetry::key),
                                             Field("attempt", &JobRetry::attempt),
                                             Field("backoff_ms", &JobRetry::backoff_ms),
                                             Field("delay_ms", &JobRetry::delay_ms),
                                             Field("at_ms", &JobRetry::at_ms),
                                             Field("breaker", &JobRetry::breaker)};
  bool operator==(const JobRetry&) const = default;
};

// The job waited on the real clock for what another run held, a lock or a lease (POST /wait).
// Real time: left out of a replay's comparison; kp-bare-loop waits it out in the job's place
// (docs/performance.md).
struct JobWait {
  static constexpr const char* kType = "job_wait";
  std::string key;  // what it waited for
  int64_t ms = 0;
  bool acquired = false;
  std::string held_by;  // when known
  std::optional<int> instance;
  static constexpr auto kFields = std::tuple{
      Field("key", &JobWait::key), Field("ms", &JobWait::ms), Field("acquired", &JobWait::acquired),
      Field("held_by", &JobWait::held_by, kOmitEmpty), Field("instance", &JobWait::instance)};
  bool operator==(const JobWait&) const = default;
};

}  // namespace killpoint::event
