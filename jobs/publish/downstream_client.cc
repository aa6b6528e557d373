#include "publish/downstream_client.h"

#include <httplib.h>

#include <cctype>
#include <nlohmann/json.hpp>

namespace killpoint::publish {
namespace {

using nlohmann::json;

std::optional<int> ParsePort(const std::string& text) {
  if (text.empty() || text.size() > 5) return std::nullopt;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  }
  int port = std::stoi(text);
  if (port < 1 || port > 65535) return std::nullopt;
  return port;
}

httplib::Client MakeClient(const Endpoint& endpoint, std::chrono::milliseconds timeout) {
  httplib::Client client(endpoint.host, endpoint.port);
  client.set_connection_timeout(timeout);
  client.set_read_timeout(timeout);
  client.set_write_timeout(timeout);
  return client;
}

// Checks that the request got an answer and that it is 200.
Status CheckAnswered(const httplib::Result& result, const std::string& request) {
  if (!result) {
    return Status::Retryable(request + " failed: " + httplib::to_string(result.error()) +
                             " error (no answer, or no answer in time)");
  }
  if (result->status != 200) {
    return Status::Retryable(request + " answered HTTP " + std::to_string(result->status) + ": " +
                             result->body);
  }
  return Status::Ok();
}

// The JSON object a request answered with 200.
Result<json> JsonAnswer(const httplib::Result& result, const std::string& request) {
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

std::optional<Endpoint> ParseDownstreamUrl(const std::string& url) {
  const std::string scheme = "http://";
  if (url.rfind(scheme, 0) != 0) return std::nullopt;
  std::string rest = url.substr(scheme.size());
  if (!rest.empty() && rest.back() == '/') rest.pop_back();
  if (rest.empty() || rest.find_first_of("/?#@[]") != std::string::npos) return std::nullopt;
  Endpoint endpoint;
  std::size_t colon = rest.find(':');
  endpoint.host = rest.substr(0, colon);
  if (endpoint.host.empty()) return std::nullopt;
  if (colon == std::string::npos) return endpoint;
  std::optional<int> port = ParsePort(rest.substr(colon + 1));
  if (!port) return std::nullopt;
  endpoint.port = *port;
  return endpoint;
}

Result<Delivery> DownstreamClient::Publish(const std::string& key,
                                           const std::string& biz_date) const {
  const std::string request = "POST " + endpoint_.Url() + "/publish";
  json body = {
      {"key", key}, {"biz_date", biz_date}, {"payload", {{"text", "settlement for " + biz_date}}}};
  httplib::Headers headers = {{"Idempotency-Key", key}};
  httplib::Client client = MakeClient(endpoint_, timeout_);
  Result<json> answer =
      JsonAnswer(client.Post("/publish", headers, body.dump(), "application/json"), request);
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
  httplib::Client client = MakeClient(endpoint_, timeout_);
  Result<json> answer =
      JsonAnswer(client.Get("/deliveries", httplib::Params{{"key", key}}, {}), request);
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
  httplib::Client client = MakeClient(endpoint_, timeout_);
  return CheckAnswered(client.Post("/alert", body.dump(), "application/json"), request);
}

}  // namespace killpoint::publish
