#include "publish/downstream_client.h"

#include <nlohmann/json.hpp>

namespace killpoint::publish {
namespace {

using nlohmann::json;

namespace http = jobs::http;

// Checks that the request got an answer and that it is 200.
Status CheckAnswered(const http::Outcome& result, const std::string& request) {
  if (!result) return Status::Retryable(request + " failed: " + result.error);
  if (result->status != 200) {
    return Status::Retryable(request + " answered HTTP " + std::to_string(result->status) + ": " +
                             result->body);
  }
  return Status::Ok();
}

// The JSON object a request answered with 200.
Result<json> JsonAnswer(const http::Outcome& result, const std::string& request) {
  if (Status s = CheckAnswered(result, request); !s.ok()) return s;
  json body = json::parse(result->body, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded() || !body.is_object()) {
    return Status::Retryable(request +
                             " answered something that is not a JSON object: " + result->body);
  }
  return body;
}

Status BadField(const std::string& request, const char* field, const json& body) {
  return Status::Retryable(request + " answered without a valid \"" + field + "\": " + body.dump());
}

}  // namespace

Result<Delivery> DownstreamClient::Publish(const std::string& key,
                                           const std::string& biz_date) const {
  const std::string request = "POST " + endpoint_.Url() + "/publish";
  json body = {
      {"key", key}, {"biz_date", biz_date}, {"payload", {{"text", "settlement for " + biz_date}}}};
  Result<json> answer = JsonAnswer(
      http::Post(endpoint_, "/publish", {{"Idempotency-Key", key}}, body.dump(), timeout_),
      request);
  if (!answer.ok()) return answer.status();
  const json& value = answer.value();
  Delivery delivery;
  auto id = value.find("delivery_id");
  if (id == value.end() || !id->is_number_integer()) return BadField(request, "delivery_id", value);
  delivery.delivery_id = id->get<int64_t>();
  auto deduplicated = value.find("deduplicated");
  if (deduplicated == value.end() || !deduplicated->is_boolean()) {
    return BadField(request, "deduplicated", value);
  }
  delivery.deduplicated = deduplicated->get<bool>();
  return delivery;
}

Result<int64_t> DownstreamClient::CountDeliveries(const std::string& key) const {
  const std::string request = "GET " + endpoint_.Url() + "/deliveries?key=" + key;
  Result<json> answer =
      JsonAnswer(http::Request(endpoint_, "GET", "/deliveries?key=" + http::EncodeQueryValue(key),
                               {}, "", timeout_),
                 request);
  if (!answer.ok()) return answer.status();
  auto count = answer.value().find("count");
  if (count == answer.value().end() || !count->is_number_integer() || *count < 0) {
    return BadField(request, "count", answer.value());
  }
  return count->get<int64_t>();
}

Status DownstreamClient::Alert(const std::string& key, const std::string& biz_date,
                               const std::string& reason) const {
  const std::string request = "POST " + endpoint_.Url() + "/alert";
  json body = {{"key", key}, {"biz_date", biz_date}, {"reason", reason}};
  return CheckAnswered(http::Post(endpoint_, "/alert", {}, body.dump(), timeout_), request);
}

}  // namespace killpoint::publish
