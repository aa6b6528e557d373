// What the downstream service (downstream/downstream.h) received. Each carries the instance of
// the attempt the request came from when an overlap ran (history/event.h, InstanceOf).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>

#include "history/event_fields.h"

namespace killpoint::event {

// POST /publish.
struct Publish {
  static constexpr const char* kType = "publish";
  std::string key;
  std::string biz_date;          // the date in the request ("" when none)
  std::string idempotency_key;   // the request's header, "" when none
  bool committed = false;        // the downstream kept it
  bool deduplicated = false;     // refused as a repeat of a delivered idempotency key
  int64_t delivery_id = 0;       // of a committed publish
  std::string fault;             // the downstream fault injected into it, "" when none
  std::optional<int64_t> burst;  // its rank in a downstream burst, when it was one of it
  std::optional<int> instance;
  static constexpr auto kFields = std::tuple{Field("key", &Publish::key),
                                             Field("biz_date", &Publish::biz_date),
                                             Field("idempotency_key", &Publish::idempotency_key),
                                             Field("committed", &Publish::committed),
                                             Field("deduplicated", &Publish::deduplicated),
                                             Field("delivery_id", &Publish::delivery_id),
                                             Field("fault", &Publish::fault, kOmitEmpty),
                                             Field("burst", &Publish::burst),
                                             Field("instance", &Publish::instance)};
  bool operator==(const Publish&) const = default;
};

// GET /deliveries: the job asked how often a key was delivered.
struct Query {
  static constexpr const char* kType = "query";
  std::string key;
  int64_t count = 0;
  std::optional<int> instance;
  static constexpr auto kFields =
      std::tuple{Field("key", &Query::key), Field("count", &Query::count),
                 Field("instance", &Query::instance)};
  bool operator==(const Query&) const = default;
};

// POST /alert: the job asked a human to look.
struct Alert {
  static constexpr const char* kType = "alert";
  std::string key;
  std::string biz_date;
  std::string reason;
  int64_t alert_id = 0;
  std::optional<int> instance;
  static constexpr auto kFields =
      std::tuple{Field("key", &Alert::key), Field("biz_date", &Alert::biz_date),
                 Field("reason", &Alert::reason), Field("alert_id", &Alert::alert_id),
                 Field("instance", &Alert::instance)};
  bool operator==(const Alert&) const = default;
};

// A request the downstream refused: "POST /publish" and why.
struct BadRequest {
  static constexpr const char* kType = "bad_request";
  std::string path;
  std::string reason;
  static constexpr auto kFields =
      std::tuple{Field("path", &BadRequest::path), Field("reason", &BadRequest::reason)};
  bool operator==(const BadRequest&) const = default;
};

}  // namespace killpoint::event
