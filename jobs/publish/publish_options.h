// The command line of kp-publish, and its defaults from the job contract's environment:
//
//   kp-publish [--biz-date D] --order execute-then-mark|mark-then-execute|intent-done
//              --save atomic|atomic-no-dirsync|in-place [--no-query] [--state PATH]
//              [--downstream URL] [--timeout-ms N]
#ifndef KILLPOINT_JOBS_PUBLISH_PUBLISH_OPTIONS_H_
#define KILLPOINT_JOBS_PUBLISH_PUBLISH_OPTIONS_H_

#include <chrono>
#include <optional>
#include <string>

#include "publish/downstream_client.h"
#include "publish/durable_save.h"
#include "publish/status.h"

namespace CLI {
class App;
}

namespace killpoint::publish {

// When the job records "done" relative to the side effect (docs/reference-jobs.md).
enum class Order { kExecuteThenMark, kMarkThenExecute, kIntentDone };

// "execute-then-mark", "mark-then-execute", "intent-done".
std::optional<Order> ParseOrder(const std::string& text);

// What the command line says, before defaults.
struct PublishFlags {
  std::string biz_date;
  std::string order;
  std::string save;
  std::string state_path;
  std::string downstream;
  bool no_query = false;
  int timeout_ms = 500;
};

// Everything the job needs, validated.
struct PublishOptions {
  std::string biz_date;
  Order order = Order::kExecuteThenMark;
  SaveMode save = SaveMode::kAtomic;
  bool no_query = false;
  std::string state_path;
  Endpoint downstream;
  std::chrono::milliseconds timeout{500};
};

// Declares the options on app, bound to flags.
void DefineCli(CLI::App& app, PublishFlags& flags);

// Fills what flags leave out from KILLPOINT_BIZ_DATE, KILLPOINT_WORKDIR and
// KILLPOINT_DOWNSTREAM, and validates the result. Fails with StatusCode::kUsage.
Result<PublishOptions> ResolveOptions(const PublishFlags& flags);

}  // namespace killpoint::publish

#endif  // KILLPOINT_JOBS_PUBLISH_PUBLISH_OPTIONS_H_
