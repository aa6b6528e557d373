// kp-retry: reference job that publishes one business date downstream and retries failed
// calls in-process with killpoint/retry.h (docs/retry.md). Exit codes: 0 done (or already
// done), 1 attempts ran out, 2 bad usage, 3 the state file is unreadable, 4 the downstream
// refused the request (not retryable).
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>

#include "common/biz_date.h"
#include "retry/retry_flow.h"

namespace {

namespace kr = killpoint::retryjob;
using killpoint::publish::Status;
using killpoint::publish::StatusCode;

struct Flags {
  std::string biz_date, state, downstream, variant = "correct", jitter = "none";
  int timeout_ms = 200;
  killpoint::retry::Policy policy;
};

std::string FlagOrEnv(const std::string& flag, const char* env) {
  if (!flag.empty()) return flag;
  const char* value = std::getenv(env);
  return value ? value : "";
}

void Define(CLI::App& app, Flags& f) {
  app.add_option("--biz-date", f.biz_date,
                 "Business date YYYY-MM-DD (default: $KILLPOINT_BIZ_DATE)");
  app.add_option("--state", f.state, "State file (default: $KILLPOINT_WORKDIR/publish-state.json)");
  app.add_option("--downstream", f.downstream, "Downstream URL (default: $KILLPOINT_DOWNSTREAM)");
  app.add_option("--variant", f.variant, "correct, tight-loop or no-reload");
  app.add_option("--timeout-ms", f.timeout_ms, "Per downstream request")
      ->check(CLI::Range(1, 600000));
  app.add_option("--max-attempts", f.policy.max_attempts)->check(CLI::Range(1, 1000));
  app.add_option("--initial-ms", f.policy.initial_ms)->check(CLI::Range(0, 3600000));
  app.add_option("--coefficient", f.policy.coefficient)->check(CLI::Range(1.0, 100.0));
  app.add_option("--maximum-ms", f.policy.maximum_ms)->check(CLI::Range(0, 3600000));
  app.add_option("--jitter", f.jitter, "none, full, equal or decorrelated");
  app.add_option("--rate-max", f.policy.rate_max)->check(CLI::Range(0, 1000));
  app.add_option("--rate-window-ms", f.policy.rate_window_ms)->check(CLI::Range(0, 3600000));
  app.add_option("--breaker-threshold", f.policy.breaker_threshold)->check(CLI::Range(0, 1000));
  app.add_option("--breaker-open-ms", f.policy.breaker_open_ms)->check(CLI::Range(0, 3600000));
}

std::optional<killpoint::retry::Jitter> ParseJitter(const std::string& s) {
  using killpoint::retry::Jitter;
  if (s == "none") return Jitter::kNone;
  if (s == "full") return Jitter::kFull;
  if (s == "equal") return Jitter::kEqual;
  if (s == "decorrelated") return Jitter::kDecorrelated;
  return std::nullopt;
}

int Usage(const std::string& message) {
  std::cerr << "kp-retry: " << message << "\n";
  return 2;
}

int ExitCodeFor(const Status& s) {
  if (s.ok()) return 0;
  std::cerr << "kp-retry: " << s.message() << "\n";
  if (s.code() == StatusCode::kUnreadableState) return 3;
  return kr::IsPermanent(s) ? 4 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "kp-retry: publish one business date, retrying in-process (killpoint reference job)"};
  Flags f;
  Define(app, f);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  kr::RetryJobOptions o;
  o.biz_date = FlagOrEnv(f.biz_date, "KILLPOINT_BIZ_DATE");
  if (!killpoint::jobs::ParseBizDate(o.biz_date))
    return Usage("bad or missing business date \"" + o.biz_date + "\"");
  std::string workdir = FlagOrEnv("", "KILLPOINT_WORKDIR");
  o.state_path = !f.state.empty()  ? f.state
                 : workdir.empty() ? ""
                                   : workdir + "/publish-state.json";
  if (o.state_path.empty()) return Usage("no state file: pass --state or set KILLPOINT_WORKDIR");
  auto endpoint =
      killpoint::publish::ParseDownstreamUrl(FlagOrEnv(f.downstream, "KILLPOINT_DOWNSTREAM"));
  if (!endpoint) return Usage("bad or missing downstream URL (want http://HOST:PORT)");
  o.downstream = *endpoint;
  auto variant = kr::ParseVariant(f.variant);
  if (!variant)
    return Usage("bad --variant \"" + f.variant + "\" (correct, tight-loop, no-reload)");
  o.variant = *variant;
  auto jitter = ParseJitter(f.jitter);
  if (!jitter) return Usage("bad --jitter \"" + f.jitter + "\" (none, full, equal, decorrelated)");
  if (f.policy.maximum_ms < f.policy.initial_ms)
    return Usage("--maximum-ms must be >= --initial-ms");
  o.policy = f.policy;
  o.policy.jitter = *jitter;
  o.timeout = std::chrono::milliseconds(f.timeout_ms);
  killpoint::retry::SteadyClock clock;
  kr::RetryJob job(std::move(o), &clock, &std::cout);
  return ExitCodeFor(job.Run());
}
