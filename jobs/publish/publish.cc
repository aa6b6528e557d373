// kp-publish: reference job that publishes one business date's settlement to the downstream
// service exactly once, or tries to, depending on --order and --save. See
// docs/reference-jobs.md. Exit codes: 0 done (or already done), 1 retryable failure (I/O,
// downstream), 2 bad usage, 3 the state file is unreadable and the job cannot start.
#include <CLI/CLI.hpp>
#include <iostream>

#include "publish/publish_flow.h"
#include "publish/publish_options.h"
#include "publish/status.h"

namespace {

using killpoint::publish::StatusCode;

int ExitCodeFor(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return 0;
    case StatusCode::kRetryable:
      return 1;
    case StatusCode::kUsage:
      return 2;
    case StatusCode::kUnreadableState:
      return 3;
  }
  return 1;
}

int Report(const killpoint::publish::Status& status) {
  if (!status.ok()) std::cerr << "kp-publish: " << status.message() << "\n";
  return ExitCodeFor(status.code());
}

}  // namespace

int main(int argc, char** argv) {
  namespace kp = killpoint::publish;
  CLI::App app{"kp-publish: publish one business date downstream (killpoint reference job)"};
  kp::PublishFlags flags;
  kp::DefineCli(app, flags);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : ExitCodeFor(StatusCode::kUsage);
  }
  kp::Result<kp::PublishOptions> options = kp::ResolveOptions(flags);
  if (!options.ok()) return Report(options.status());
  kp::PublishJob job(std::move(options.value()), &std::cout);
  return Report(job.Run());
}
