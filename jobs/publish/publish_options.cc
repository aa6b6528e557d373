#include "publish/publish_options.h"

#include <CLI/CLI.hpp>
#include <cstdlib>

#include "common/biz_date.h"

namespace killpoint::publish {
namespace {

std::string FlagOrEnv(const std::string& flag, const char* env) {
  if (!flag.empty()) return flag;
  const char* value = std::getenv(env);
  return value == nullptr ? std::string() : std::string(value);
}

Status ResolveDate(const PublishFlags& flags, PublishOptions& options) {
  options.biz_date = FlagOrEnv(flags.biz_date, "KILLPOINT_BIZ_DATE");
  if (options.biz_date.empty()) {
    return Status::Usage("no business date: pass --biz-date or set KILLPOINT_BIZ_DATE");
  }
  if (!jobs::ParseBizDate(options.biz_date)) {
    return Status::Usage("bad business date \"" + options.biz_date +
                         "\" (want a real date as YYYY-MM-DD)");
  }
  return Status::Ok();
}

Status ResolveStatePath(const PublishFlags& flags, PublishOptions& options) {
  options.state_path = flags.state_path;
  if (!options.state_path.empty()) return Status::Ok();
  std::string workdir = FlagOrEnv("", "KILLPOINT_WORKDIR");
  if (workdir.empty()) return Status::Usage("no state file: pass --state or set KILLPOINT_WORKDIR");
  options.state_path = workdir + "/publish-state.json";
  return Status::Ok();
}

Status ResolveDownstream(const PublishFlags& flags, PublishOptions& options) {
  std::string url = FlagOrEnv(flags.downstream, "KILLPOINT_DOWNSTREAM");
  if (url.empty()) {
    return Status::Usage("no downstream: pass --downstream or set KILLPOINT_DOWNSTREAM");
  }
  std::optional<Endpoint> endpoint = ParseDownstreamUrl(url);
  if (!endpoint) return Status::Usage("bad downstream URL \"" + url + "\" (want http://HOST:PORT)");
  options.downstream = *endpoint;
  return Status::Ok();
}

Status ResolveModes(const PublishFlags& flags, PublishOptions& options) {
  std::optional<Order> order = ParseOrder(flags.order);
  std::optional<SaveMode> save = ParseSaveMode(flags.save);
  if (!order) return Status::Usage("bad --order \"" + flags.order + "\"");
  if (!save) return Status::Usage("bad --save \"" + flags.save + "\"");
  if (flags.no_query && *order != Order::kIntentDone) {
    return Status::Usage("--no-query only applies to --order intent-done");
  }
  options.order = *order;
  options.save = *save;
  options.no_query = flags.no_query;
  options.timeout = std::chrono::milliseconds(flags.timeout_ms);
  return Status::Ok();
}

}  // namespace

std::optional<Order> ParseOrder(const std::string& text) {
  if (text == "execute-then-mark") return Order::kExecuteThenMark;
  if (text == "mark-then-execute") return Order::kMarkThenExecute;
  if (text == "intent-done") return Order::kIntentDone;
  return std::nullopt;
}

void DefineCli(CLI::App& app, PublishFlags& flags) {
  app.add_option("--biz-date", flags.biz_date,
                 "Business date YYYY-MM-DD (default $KILLPOINT_BIZ_DATE)");
  app.add_option("--order", flags.order, "When to record done relative to the publish")
      ->required()
      ->check(CLI::IsMember({"execute-then-mark", "mark-then-execute", "intent-done"}));
  app.add_option("--save", flags.save, "How to write the state file")
      ->required()
      ->check(CLI::IsMember({"atomic", "atomic-no-dirsync", "in-place"}));
  app.add_flag("--no-query", flags.no_query,
               "intent-done: alert on a pending intent instead of asking the downstream");
  app.add_option("--state", flags.state_path,
                 "State file (default $KILLPOINT_WORKDIR/publish-state.json)");
  app.add_option("--downstream", flags.downstream,
                 "Downstream base URL http://HOST:PORT (default $KILLPOINT_DOWNSTREAM)");
  app.add_option("--timeout-ms", flags.timeout_ms,
                 "Connect, write and read timeout of each downstream request")
      ->check(CLI::Range(1, 3600 * 1000))
      ->capture_default_str();
}

Result<PublishOptions> ResolveOptions(const PublishFlags& flags) {
  PublishOptions options;
  for (auto resolve : {ResolveModes, ResolveDate, ResolveStatePath, ResolveDownstream}) {
    if (Status s = resolve(flags, options); !s.ok()) return s;
  }
  return options;
}

}  // namespace killpoint::publish
