// The downstream service of a trial: the side effect a job cannot take back (SMS, push,
// payment), as HTTP/1.1 on 127.0.0.1 with an ephemeral port. Every request lands in the
// trial's history. Endpoints (see docs/downstream.md):
//   POST /publish  {"key","biz_date","payload"} -> {"delivery_id","deduplicated"}
//   GET  /deliveries?key=K                      -> {"key","count"}
//   POST /alert    {"key","biz_date","reason"}  -> {"alert_id"}
//   POST /retry    {"key","attempt","backoff_ms","delay_ms","at_ms","breaker"} -> {}
//                  (a job's in-process retry, for retry_policy_respected; docs/retry.md)
#pragma once

#include <memory>
#include <string>

#include "history/history.h"
#include "util/result.h"

namespace killpoint {

class Downstream {
 public:
  // `history` must outlive the service.
  static Result<std::unique_ptr<Downstream>> Start(bool dedupe, History* history);
  virtual ~Downstream() = default;

  virtual std::string BaseUrl() const = 0;

  // The next POST /publish suffers `fault` (kFailBeforeCommit, kCommitNoAnswer or kDelay); ""
  // disarms.
  virtual void ArmFault(const std::string& fault) = 0;

  // Lets go of requests held by commit_no_answer (they end without a response). Call once the
  // attempt that sent them is over.
  virtual void ReleaseHeld() = 0;
};

}  // namespace killpoint
