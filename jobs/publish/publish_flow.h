// The publish job for one business date: load the state, publish the date's settlement
// downstream once, record it, in the order the options choose (docs/reference-jobs.md).
#ifndef KILLPOINT_JOBS_PUBLISH_PUBLISH_FLOW_H_
#define KILLPOINT_JOBS_PUBLISH_PUBLISH_FLOW_H_

#include <ostream>
#include <string>

#include "publish/downstream_client.h"
#include "publish/publish_options.h"
#include "publish/state_file.h"
#include "publish/status.h"

namespace killpoint::publish {

// The idempotency key of a date: "publish-" + biz_date.
std::string IdempotencyKey(const std::string& biz_date);

// One run of the job. Not thread-safe; run it once.
class PublishJob {
 public:
  // Writes its one-line outcome to *out, which must outlive the job.
  PublishJob(PublishOptions options, std::ostream* out);

  Status Run();

 private:
  Status ExecuteThenMark();
  Status MarkThenExecute();
  Status IntentDone();
  Status ResolvePendingIntent();
  Status PublishOnce();          // before_publish, POST /publish, after_publish.
  Status Mark(DateState state);  // Records the date's state and saves the file.

  const PublishOptions options_;
  const std::string key_;
  const DownstreamClient downstream_;
  std::ostream* const out_;
  PublishState state_;
};

}  // namespace killpoint::publish

#endif  // KILLPOINT_JOBS_PUBLISH_PUBLISH_FLOW_H_
