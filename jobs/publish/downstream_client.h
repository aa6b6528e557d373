// HTTP client for the downstream service the publish job notifies (docs/reference-jobs.md).
// Every failure (no connection, timeout, a status other than 200, an answer that is not the
// expected JSON) is StatusCode::kRetryable: the job exits 1 and the scheduler may retry.
#ifndef KILLPOINT_JOBS_PUBLISH_DOWNSTREAM_CLIENT_H_
#define KILLPOINT_JOBS_PUBLISH_DOWNSTREAM_CLIENT_H_

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "common/http_client.h"
#include "publish/status.h"

namespace killpoint::publish {

using Endpoint = jobs::http::Endpoint;

// Accepts http://HOST[:PORT] with an optional trailing '/'; nullopt for anything else.
inline std::optional<Endpoint> ParseDownstreamUrl(const std::string& url) {
  return jobs::http::ParseBaseUrl(url);
}

struct Delivery {
  int64_t delivery_id = 0;
  bool deduplicated = false;
};

class DownstreamClient {
 public:
  // timeout bounds each of connecting, sending and waiting for the answer.
  DownstreamClient(Endpoint endpoint, std::chrono::milliseconds timeout)
      : endpoint_(std::move(endpoint)), timeout_(timeout) {}

  // POST /publish with header Idempotency-Key: key.
  Result<Delivery> Publish(const std::string& key, const std::string& biz_date) const;
  // GET /deliveries?key=key: how many deliveries key has had.
  Result<int64_t> CountDeliveries(const std::string& key) const;
  // POST /alert: pages a human.
  Status Alert(const std::string& key, const std::string& biz_date,
               const std::string& reason) const;

 private:
  Endpoint endpoint_;
  std::chrono::milliseconds timeout_;
};

}  // namespace killpoint::publish

#endif  // KILLPOINT_JOBS_PUBLISH_DOWNSTREAM_CLIENT_H_
