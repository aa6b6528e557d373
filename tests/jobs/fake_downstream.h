// A small stand-in for the harness's downstream service (docs/reference-jobs.md), on
// 127.0.0.1 with an ephemeral port: POST /publish deduplicates by Idempotency-Key,
// GET /deliveries counts, POST /alert and POST /retry record. It remembers every request it got.
#ifndef KILLPOINT_TESTS_JOBS_FAKE_DOWNSTREAM_H_
#define KILLPOINT_TESTS_JOBS_FAKE_DOWNSTREAM_H_

#include <httplib.h>

#include <condition_variable>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

namespace killpoint::testing {

class FakeDownstream {
 public:
  enum class Mode {
    kNormal,
    kFail,  // Every request answers HTTP 500.
    kHang,  // Every request waits, unanswered, until the destructor.
  };

  explicit FakeDownstream(Mode mode = Mode::kNormal);
  FakeDownstream(const FakeDownstream&) = delete;
  FakeDownstream& operator=(const FakeDownstream&) = delete;
  ~FakeDownstream();

  // The value for KILLPOINT_DOWNSTREAM.
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  struct Request {
    std::string method_and_path;  // "POST /publish"
    std::string idempotency_key;  // The header, "" when absent.
    nlohmann::json body;          // null when the body is not JSON.
  };
  // Every request received, in order. Thread-safe.
  std::vector<Request> requests() const;
  // Deliveries per key that were not deduplicated. Thread-safe.
  int deliveries(const std::string& key) const;
  // Pretends key was already delivered once (by an attempt before the test looked).
  void AddDelivery(const std::string& key);

 private:
  void Route();
  // Records the request; false when the mode says not to answer normally.
  bool Admit(const httplib::Request& request, httplib::Response& response);
  void Publish(const httplib::Request& request, httplib::Response& response);
  void Deliveries(const httplib::Request& request, httplib::Response& response);

  const Mode mode_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  mutable std::mutex mu_;
  std::condition_variable released_cv_;
  bool released_ = false;                  // Guarded by mu_. Set by the destructor.
  std::vector<Request> requests_;          // Guarded by mu_.
  std::map<std::string, int> deliveries_;  // Guarded by mu_.
  int next_delivery_id_ = 1;               // Guarded by mu_.
};

}  // namespace killpoint::testing

#endif  // KILLPOINT_TESTS_JOBS_FAKE_DOWNSTREAM_H_
