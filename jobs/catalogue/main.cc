// kp-catalogue: the subcommand table and the job contract's defaults; see catalogue.h.
#include <SQLiteCpp/SQLiteCpp.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "catalogue/catalogue.h"
#include "common/biz_date.h"

namespace {

using namespace killpoint::catalogue;

struct Pattern {
  const char* name;
  const char* about;
  std::vector<std::string> variants;  // the first is the correct form
  std::function<int(const Context&)> run;
};

const std::vector<Pattern>& Patterns() {
  static const std::vector<Pattern> patterns = {
      {"order-status", "order status by unique key", {"upsert", "insert"}, RunOrderStatus},
      {"inventory",
       "stock decrement with a log row, in one transaction",
       {"ledger", "no-key"},
       RunInventory},
      {"refund",
       "refund with an idempotency key, published downstream",
       {"order-key", "uuid"},
       RunRefund},
      {"order-state",
       "order state machine new -> processing -> completed",
       {"conditional", "read-then-write"},
       RunOrderState},
      {"queue", "queue consumer", {"ack-after-dedupe", "ack-after", "ack-before"}, RunQueue},
      {"lock",
       "a daily payout under a lock",
       {"lease", "lease-fencing", "flock", "lease-no-idempotency"},
       RunLock},
  };
  return patterns;
}

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

// Fills what the options left out from the job contract; returns an error, "" when usable.
std::string Complete(Context& ctx, const std::string& pattern) {
  if (ctx.workdir.empty()) ctx.workdir = Env("KILLPOINT_WORKDIR");
  if (ctx.db.empty()) {
    if (ctx.workdir.empty()) return "no database: pass --db or set KILLPOINT_WORKDIR";
    ctx.db = ctx.workdir + "/" + pattern + ".db";
  }
  if (ctx.workdir.empty()) ctx.workdir = ".";
  if (ctx.biz_date.empty()) ctx.biz_date = Env("KILLPOINT_BIZ_DATE");
  if (!killpoint::jobs::ParseBizDate(ctx.biz_date)) {
    return "bad or missing business date \"" + ctx.biz_date +
           "\": pass --biz-date or set KILLPOINT_BIZ_DATE (YYYY-MM-DD)";
  }
  if (ctx.downstream.empty()) ctx.downstream = Env("KILLPOINT_DOWNSTREAM");
  std::string instance = Env("KILLPOINT_INSTANCE");
  if (!instance.empty()) {
    if (instance.find_first_not_of("0123456789") != std::string::npos || instance.size() > 6) {
      return "KILLPOINT_INSTANCE must be a small positive integer, got \"" + instance + "\"";
    }
    ctx.instance = std::stoi(instance);
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "kp-catalogue: reference jobs of common idempotency patterns (killpoint, docs/catalogue.md)"};
  app.require_subcommand(1);
  Context ctx;
  for (const Pattern& p : Patterns()) {
    CLI::App* sub = app.add_subcommand(p.name, p.about);
    sub->add_option("--variant", ctx.variant,
                    "which form of the pattern (the first is the correct one)")
        ->required()
        ->check(CLI::IsMember(p.variants));
    sub->add_option("--db", ctx.db,
                    std::string("SQLite database (default $KILLPOINT_WORKDIR/") + p.name + ".db)");
    sub->add_option("--biz-date", ctx.biz_date,
                    "business date YYYY-MM-DD (default $KILLPOINT_BIZ_DATE)");
    sub->add_option("--downstream", ctx.downstream,
                    "downstream base URL (default $KILLPOINT_DOWNSTREAM)");
    sub->add_option("--workdir", ctx.workdir,
                    "where a lock file goes (default $KILLPOINT_WORKDIR)");
    sub->add_option("--timeout-ms", ctx.timeout_ms, "downstream request timeout")
        ->check(CLI::Range(1, 600000));
    sub->add_option("--ttl-ms", ctx.ttl_ms, "lock: the lease's time to live, real clock")
        ->check(CLI::Range(1, 86400000));
    sub->add_option("--wait-ms", ctx.wait_ms, "lock: how long to wait for a held lock")
        ->check(CLI::Range(0, 86400000));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  const Pattern* chosen = nullptr;
  for (const Pattern& p : Patterns()) {
    if (app.got_subcommand(p.name)) chosen = &p;
  }
  std::string prefix = std::string("kp-catalogue ") + chosen->name + ": ";
  if (std::string error = Complete(ctx, chosen->name); !error.empty()) {
    std::cerr << prefix << error << "\n";
    return kExitUsage;
  }
  try {
    return chosen->run(ctx);
  } catch (const JobError& e) {
    std::cerr << prefix << e.what() << "\n";
    return e.code;
  } catch (const SQLite::Exception& e) {
    std::cerr << prefix << "sqlite error on " << ctx.db << ": " << e.what() << "\n";
    return kExitFailed;
  }
}
