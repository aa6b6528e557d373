// The downstream's delivery ledger against a reference model, with RapidCheck's stateful
// testing (rc::state): random sequences of publishes (some under an injected fault) and queries
// go to the real service over HTTP; after each one, what the service answered and
// what it recorded in the history must agree with a map of key -> deliveries, with and without
// deduplication by key.
#include <gtest/gtest.h>
#include <httplib.h>
#include <rapidcheck/gtest.h>
#include <rapidcheck/state.h>

#include <map>
#include <nlohmann/json.hpp>

#include "downstream/downstream.h"
#include "history/event_registry.h"
#include "history/history.h"
#include "scenario/scenario.h"

namespace killpoint {
namespace {

using json = nlohmann::json;

struct Ledger {
  bool dedupe = false;
  std::map<std::string, int> deliveries;  // key -> deliveries committed
};

struct LedgerService {
  History history;
  std::unique_ptr<Downstream> downstream;
  std::unique_ptr<httplib::Client> client;
};

const std::vector<std::string> kKeys = {"a", "b", "c"};

struct Publish : rc::state::Command<Ledger, LedgerService> {
  std::string key = *rc::gen::elementOf(kKeys);
  std::string fault = *rc::gen::element<std::string>("", "", kFailBeforeCommit);

  void apply(Ledger& m) const override {
    if (fault == kFailBeforeCommit) return;
    if (!m.dedupe || m.deliveries[key] == 0) ++m.deliveries[key];
  }
  void run(const Ledger& m, LedgerService& s) const override {
    s.downstream->ArmFault(fault);
    auto res = s.client->Post("/publish", json{{"key", key}, {"biz_date", "2026-11-01"}}.dump(),
                              "application/json");
    RC_ASSERT(res);
    if (fault == kFailBeforeCommit) {
      RC_ASSERT(res->status == 503);
      return;
    }
    RC_ASSERT(res->status == 200);
    json body = json::parse(res->body);
    bool duplicate = m.dedupe && m.deliveries.count(key) && m.deliveries.at(key) > 0;
    RC_ASSERT(body["deduplicated"].get<bool>() == duplicate);
  }
  void show(std::ostream& os) const override {
    os << "Publish(" << key << (fault.empty() ? "" : ", " + fault) << ")";
  }
};

struct Query : rc::state::Command<Ledger, LedgerService> {
  std::string key = *rc::gen::elementOf(kKeys);

  void run(const Ledger& m, LedgerService& s) const override {
    auto res = s.client->Get("/deliveries?key=" + key);
    RC_ASSERT(res);
    RC_ASSERT(res->status == 200);
    int expected = m.deliveries.count(key) ? m.deliveries.at(key) : 0;
    RC_ASSERT(json::parse(res->body)["count"].get<int>() == expected);
  }
  void show(std::ostream& os) const override { os << "Query(" << key << ")"; }
};

RC_GTEST_PROP(DownstreamLedger, AgreesWithTheModel, ()) {
  Ledger model;
  model.dedupe = *rc::gen::arbitrary<bool>();
  LedgerService s;
  auto started = Downstream::Start(model.dedupe, &s.history);
  RC_ASSERT(started.has_value());
  s.downstream = std::move(started.value());
  s.client = std::make_unique<httplib::Client>(s.downstream->BaseUrl());
  rc::state::check(model, s, rc::state::gen::execOneOfWithArgs<Publish, Query>());
  // The history's committed publishes add up to what the service answers for each key.
  std::map<std::string, int> committed, answered;
  for (const Event& e : s.history.Events()) {
    if (e.type == event::Publish::kType && e.data.value("committed", false))
      ++committed[e.data.value("key", "")];
  }
  for (const auto& key : kKeys) {
    auto res = s.client->Get("/deliveries?key=" + key);
    RC_ASSERT(res);
    int n = json::parse(res->body)["count"].get<int>();
    if (n > 0) answered[key] = n;
  }
  RC_ASSERT(committed == answered);
}

}  // namespace
}  // namespace killpoint
