// kp-retry's flow: publish one business date downstream and retry failed calls in-process
// with the retry library (killpoint/retry.h). See docs/retry.md.
//
// Variants:
//   correct    before every attempt, reload the state file and ask the downstream how many
//              deliveries the key has (an earlier attempt may have committed without an
//              answer); publish only when neither says it is done. Backoff as the policy says.
//   tight-loop the same reloads, but no backoff at all and (almost) unbounded attempts.
//   no-reload  reloads once at start, then retries the publish blindly: a publish that
//              committed without an answer is sent again.
// Every in-process retry is reported to the downstream (POST /retry) before it runs.
#ifndef KILLPOINT_JOBS_RETRY_RETRY_FLOW_H_
#define KILLPOINT_JOBS_RETRY_RETRY_FLOW_H_

#include <killpoint/retry.h>

#include <optional>
#include <ostream>
#include <string>

#include "publish/downstream_client.h"
#include "publish/state_file.h"
#include "publish/status.h"

namespace killpoint::retryjob {

enum class Variant { kCorrect, kTightLoop, kNoReload };
std::optional<Variant> ParseVariant(const std::string& text);

// The attempts a tight loop allows: "unbounded", with a bound so a broken downstream cannot
// keep a trial running for ever.
inline constexpr int kTightLoopAttempts = 1000;

struct RetryJobOptions {
  std::string biz_date;
  std::string state_path;
  publish::Endpoint downstream;
  std::chrono::milliseconds timeout{200};
  Variant variant = Variant::kCorrect;
  retry::Policy policy;
};

// The downstream's 4xx answers are not worth retrying; every other failure is.
bool IsPermanent(const publish::Status& status);

class RetryJob {
 public:
  RetryJob(RetryJobOptions options, retry::Clock* clock, std::ostream* out);
  // Ok when the date is published (or was already); Retryable when attempts ran out; the
  // status of a non-retryable failure otherwise.
  publish::Status Run();

 private:
  retry::Outcome Attempt(int n);
  // Reloads the state file and asks the downstream; true when the date is already done.
  publish::Result<bool> AlreadyDone();
  void Report(const retry::RetryEvent& e) const;
  retry::Outcome Fail(publish::Status status);

  RetryJobOptions options_;
  std::string key_;
  publish::DownstreamClient downstream_;
  retry::Clock* clock_;
  std::ostream* out_;
  publish::Status last_ = publish::Status::Ok();
  bool done_ = false;
};

}  // namespace killpoint::retryjob

#endif  // KILLPOINT_JOBS_RETRY_RETRY_FLOW_H_
