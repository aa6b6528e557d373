// The downstream service of a trial: the side effect a job cannot take back (SMS, push,
// payment), as HTTP/1.1 on 127.0.0.1 with an ephemeral port. Every request lands in the
// trial's history. Endpoints (see docs/downstream.md):
//   POST /publish  {"key","biz_date","payload"} -> {"delivery_id","deduplicated"}
//   GET  /deliveries?key=K                      -> {"key","count"}
//   POST /alert    {"key","biz_date","reason"}  -> {"alert_id"}
//   POST /retry    {"key","attempt","backoff_ms","delay_ms","at_ms","breaker"} -> {}
//                  (a job's in-process retry, for retry_policy_respected; docs/retry.md)
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "history/history.h"
#include "util/result.h"

namespace killpoint {

// The largest request the downstream reads: every body of its API is a small JSON object. A
// longer body, or a Content-Length that does not parse as one in range ("-5", an overflow),
// is answered 413 at once and never read.
inline constexpr size_t kMaxDownstreamRequestBytes = size_t{1} << 20;  // 1 MiB

// What a slow or idle client may hold (issue 34; docs/writing-a-job.md, "The downstream
// service"). The request line and headers must arrive within kDownstreamHeaderTimeout of the
// moment the server starts reading them (a new connection, or the answer before on a
// keep-alive one: an idle keep-alive connection is closed then too), the body within
// kDownstreamBodyTimeout of the headers' end, and an answer must be taken by the client within
// kDownstreamWriteTimeout. A client too slow is closed, nothing recorded: its request was never
// whole. Beyond kMaxDownstreamConnections open connections a new one is closed on accept.
inline constexpr std::chrono::milliseconds kDownstreamHeaderTimeout{10'000};
inline constexpr std::chrono::milliseconds kDownstreamBodyTimeout{10'000};
inline constexpr std::chrono::milliseconds kDownstreamWriteTimeout{10'000};
inline constexpr size_t kMaxDownstreamConnections = 4096;

// The limits above, which a test may shorten.
struct DownstreamLimits {
  std::chrono::milliseconds header_timeout = kDownstreamHeaderTimeout;
  std::chrono::milliseconds body_timeout = kDownstreamBodyTimeout;
  size_t max_connections = kMaxDownstreamConnections;
};

// Every connection is served (one thread reads and writes them all, asynchronously), and its
// requests one after another in the order they came, pipelined or not: a request is read only
// once the one before it on the connection is answered and has passed its points.
class Downstream {
 public:
  // `history` must outlive the service. With `by_idempotency_key`, dedupe compares the
  // Idempotency-Key header (a request without one is never a duplicate), not the body's key.
  static Result<std::unique_ptr<Downstream>> Start(bool dedupe, History* history,
                                                   bool by_idempotency_key = false,
                                                   DownstreamLimits limits = {});
  // The endpoints it serves, as (method, path): docs/downstream-openapi.json documents each.
  static std::vector<std::pair<std::string, std::string>> Routes();
  virtual ~Downstream() = default;

  virtual std::string BaseUrl() const = 0;

  // The next POST /publish suffers `fault` (kFailBeforeCommit, kCommitNoAnswer or kDelay); ""
  // disarms.
  virtual void ArmFault(const std::string& fault) = 0;

  // The next `length` POST /publish fail before commit (503), whatever is armed, across
  // attempts, until disarmed with 0 (a downstream burst, docs/faults.md).
  virtual void ArmBurst(int length) = 0;

  // Which instance of the attempt requests come from when the job does not say so (header
  // X-Killpoint-Instance): 1 (no overlap: not recorded), 2 (the first is held), 0 (both run),
  // 3 (the third instance runs while the second is held, docs/faults.md "Three instances").
  virtual void SetInstance(int instance) = 0;

  // Lets go of requests held by commit_no_answer (they end without a response). Call once the
  // attempt that sent them is over.
  virtual void ReleaseHeld() = 0;
  // A worker's downstream serves one trial after another (run/trial_services.h). Attach: from
  // now on as if just started with these arguments: no delivery, alert, armed fault, burst or
  // instance is left of the trial before. Detach: lets go of held requests, waits for the
  // requests in progress to end (none are left once a trial's processes are gone, but for one
  // sleeping out kDelay), and records nothing more in the trial's history; until the next
  // Attach, requests are answered 503 and recorded nowhere.
  virtual void Attach(bool dedupe, History* history, bool by_idempotency_key) = 0;
  virtual void Detach() = 0;

  // Downstream crash points (plan/crash_point.h): a POST /publish or /alert passes
  // "downstream:<path>:before_commit" once its body is read, ":after_commit" once it is
  // delivered (or found a duplicate) and recorded, before any answer, and ":after_answer" once
  // its answer is written to the socket. At each the request's own thread calls `hook`, which
  // returns true when it killed the job's attempt: the request then ends there, never
  // committed (before_commit) or never answered (after_commit). A request that fails before
  // commit (503) passes no more points; one held by commit_no_answer none after after_commit.
  // Set after Attach; Detach clears it.
  using PointHook = std::function<bool(const std::string& point)>;
  virtual void SetPointHook(PointHook hook) = 0;
  // Waits until no request has a point left to pass (an answer still being written, for its
  // after_answer), or `timeout` passed; true when none has. Call it once the attempt's
  // processes are gone, before the attempt's state is finished, so that every point of its
  // requests counts in that attempt.
  virtual bool WaitPoints(std::chrono::milliseconds timeout) = 0;
};

}  // namespace killpoint
