#include "retry/retry_flow.h"

#include <killpoint/failpoint.h>

#include <nlohmann/json.hpp>

#include "publish/durable_save.h"
#include "publish/publish_flow.h"

namespace killpoint::retryjob {

using publish::Result;
using publish::Status;

std::optional<Variant> ParseVariant(const std::string& text) {
  if (text == "correct") return Variant::kCorrect;
  if (text == "tight-loop") return Variant::kTightLoop;
  if (text == "no-reload") return Variant::kNoReload;
  return std::nullopt;
}

bool IsPermanent(const Status& status) {
  return status.message().find(" answered HTTP 4") != std::string::npos;
}

RetryJob::RetryJob(RetryJobOptions options, retry::Clock* clock, std::ostream* out)
    : options_(std::move(options)),
      key_(publish::IdempotencyKey(options_.biz_date)),
      downstream_(options_.downstream, options_.timeout),
      clock_(clock),
      out_(out) {
  if (options_.variant == Variant::kTightLoop) {
    options_.policy = retry::Policy{};
    options_.policy.max_attempts = kTightLoopAttempts;
    options_.policy.initial_ms = 0;
    options_.policy.maximum_ms = 0;
  }
}

Status RetryJob::Run() {
  uint64_t seed = 0xCBF29CE484222325ULL;  // FNV-1a of the date: the same jitter on every run
  for (unsigned char c : options_.biz_date) seed = (seed ^ c) * 0x100000001B3ULL;
  retry::Retrier retrier(options_.policy, clock_, seed);
  retry::Outcome out = retrier.Run([this](int n) { return Attempt(n); },
                                   [this](const retry::RetryEvent& e) { Report(e); });
  if (out == retry::Outcome::kOk) return Status::Ok();
  return last_;
}

Result<bool> RetryJob::AlreadyDone() {
  Result<publish::PublishState> state = publish::LoadState(options_.state_path);
  if (!state.ok()) return state.status();
  if (state.value().Get(options_.biz_date) == publish::DateState::kDone) return true;
  Result<int64_t> count = downstream_.CountDeliveries(key_);
  if (!count.ok()) return count.status();
  if (count.value() == 0) return false;
  publish::PublishState s = state.value();
  s.dates[options_.biz_date] = publish::DateState::kDone;
  Status saved = publish::SaveFile(options_.state_path, publish::SerializeState(s),
                                   publish::SaveMode::kAtomic);
  if (!saved.ok()) return saved;
  *out_ << "reconciled " << options_.biz_date << ": the downstream has " << count.value()
        << " deliveries\n";
  return true;
}

retry::Outcome RetryJob::Fail(Status status) {
  last_ = std::move(status);
  *out_ << "attempt failed: " << last_.message() << "\n";
  if (last_.code() == publish::StatusCode::kUnreadableState || IsPermanent(last_)) {
    return retry::Outcome::kNonRetryable;
  }
  return retry::Outcome::kRetryable;
}

retry::Outcome RetryJob::Attempt(int n) {
  if (n == 1 || options_.variant != Variant::kNoReload) {
    Result<bool> done = AlreadyDone();
    if (!done.ok()) return Fail(done.status());
    if (done.value()) return retry::Outcome::kOk;
  }
  killpoint::failpoint("before_publish");
  Result<publish::Delivery> delivery = downstream_.Publish(key_, options_.biz_date);
  if (!delivery.ok()) return Fail(delivery.status());
  killpoint::failpoint("after_publish");
  Result<publish::PublishState> state = publish::LoadState(options_.state_path);
  if (!state.ok()) return Fail(state.status());
  publish::PublishState s = state.value();
  s.dates[options_.biz_date] = publish::DateState::kDone;
  Status saved = publish::SaveFile(options_.state_path, publish::SerializeState(s),
                                   publish::SaveMode::kAtomic);
  if (!saved.ok()) return Fail(saved);
  *out_ << "published " << options_.biz_date << " key=" << key_
        << " delivery_id=" << delivery.value().delivery_id << " attempt=" << n << "\n";
  return retry::Outcome::kOk;
}

// POST /retry: the history gets every in-process retry. A report that fails does not fail
// the job; retry_policy_respected then sees a gap in the attempt numbers and says so.
void RetryJob::Report(const retry::RetryEvent& e) const {
  nlohmann::json body = {{"key", key_},
                         {"attempt", e.attempt},
                         {"backoff_ms", e.backoff_ms},
                         {"delay_ms", e.delay_ms},
                         {"at_ms", e.at_ms},
                         {"breaker", retry::ToString(e.breaker)}};
  jobs::http::Post(options_.downstream, "/retry", {}, body.dump(), options_.timeout);
  *out_ << "retry " << e.attempt << " after " << e.delay_ms << " ms (backoff " << e.backoff_ms
        << " ms)\n";
}

}  // namespace killpoint::retryjob
