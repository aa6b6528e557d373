#include "fake_downstream.h"

#include <stdexcept>

namespace killpoint::testing {

using nlohmann::json;

FakeDownstream::FakeDownstream(Mode mode) : mode_(mode) {
  Route();
  port_ = server_.bind_to_any_port("127.0.0.1");
  if (port_ <= 0) throw std::runtime_error("FakeDownstream: cannot bind 127.0.0.1");
  thread_ = std::thread([this] { server_.listen_after_bind(); });
  // stop() is a no-op until the server runs; the socket already queues connections.
  while (!server_.is_running()) std::this_thread::yield();
}

FakeDownstream::~FakeDownstream() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    released_ = true;
  }
  released_cv_.notify_all();
  server_.stop();
  thread_.join();
}

std::vector<FakeDownstream::Request> FakeDownstream::requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

int FakeDownstream::deliveries(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = deliveries_.find(key);
  return it == deliveries_.end() ? 0 : it->second;
}

void FakeDownstream::AddDelivery(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  ++deliveries_[key];
  ++next_delivery_id_;
}

void FakeDownstream::Route() {
  server_.Post("/publish", [this](const httplib::Request& req, httplib::Response& res) {
    if (Admit(req, res)) Publish(req, res);
  });
  server_.Get("/deliveries", [this](const httplib::Request& req, httplib::Response& res) {
    if (Admit(req, res)) Deliveries(req, res);
  });
  server_.Post("/retry", [this](const httplib::Request& req, httplib::Response& res) {
    if (Admit(req, res)) res.set_content("{}", "application/json");
  });
  server_.Post("/alert", [this](const httplib::Request& req, httplib::Response& res) {
    if (Admit(req, res)) res.set_content("{}", "application/json");
  });
}

bool FakeDownstream::Admit(const httplib::Request& request, httplib::Response& response) {
  std::unique_lock<std::mutex> lock(mu_);
  requests_.push_back({request.method + " " + request.path,
                       request.get_header_value("Idempotency-Key"),
                       json::parse(request.body, nullptr, /*allow_exceptions=*/false)});
  if (requests_.back().body.is_discarded()) requests_.back().body = nullptr;
  if (mode_ == Mode::kFail) {
    response.status = 500;
    response.set_content("injected failure", "text/plain");
    return false;
  }
  if (mode_ == Mode::kHang) {
    released_cv_.wait(lock, [this] { return released_; });
    response.status = 503;
    return false;
  }
  return true;
}

void FakeDownstream::Publish(const httplib::Request& request, httplib::Response& response) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string key = request.get_header_value("Idempotency-Key");
  bool deduplicated = !key.empty() && deliveries_[key] > 0;
  if (!deduplicated) ++deliveries_[key];
  json answer = {{"delivery_id", next_delivery_id_++}, {"deduplicated", deduplicated}};
  response.set_content(answer.dump(), "application/json");
}

void FakeDownstream::Deliveries(const httplib::Request& request, httplib::Response& response) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string key = request.get_param_value("key");
  json answer = {{"key", key}, {"count", deliveries_[key]}};
  response.set_content(answer.dump(), "application/json");
}

}  // namespace killpoint::testing
